"""Issue 32: `report`'s text prints every matrix up to limits.REPORT_TEXT_MAX (64) tokens and a
summary above, one that says how to get everything (--full, and --json for programs); the JSON
stays complete up to limits.REPORT_JSON_MAX (512). Before, the text printed every matrix up to 512
tokens (10 MB at 512), so a 65-token text was full: the first test failed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.builtins import BUILTINS
from attn_tui.core.limits import REPORT_JSON_MAX, REPORT_TEXT_MAX

RNG = np.random.default_rng(32)


def save(tmp_path, T, T_k=None, mask="causal"):
    T_k = T if T_k is None else T_k
    p = tmp_path / f"random{T}x{T_k}.npz"
    np.savez(p, Q=RNG.standard_normal((T, 4)), K=RNG.standard_normal((T_k, 4)), V=RNG.standard_normal((T_k, 3)),
             mask=np.array(mask))  # fmt: skip
    return str(p)


def report(capsys, *args):
    assert main(["report", *args]) == 0
    return capsys.readouterr().out


def test_the_threshold_is_64_tokens():
    assert REPORT_TEXT_MAX == 64 and REPORT_JSON_MAX == 512


def test_text_above_64_tokens_is_a_summary_that_says_how_to_get_everything(tmp_path, capsys):
    out = report(capsys, "--scenario", save(tmp_path, 65))
    assert "Matrix(" not in out and len(out.splitlines()) < 40
    assert (
        "Summary: 65 tokens, above 64, so no matrix is printed "
        "(--full prints them; --json gives every number, for programs)." in out
    )


def test_text_at_64_tokens_prints_every_matrix(tmp_path, capsys):
    out = report(capsys, "--scenario", save(tmp_path, 64))
    assert "Summary:" not in out and "Matrix(64x64)" in out


def test_full_at_65_tokens_prints_every_matrix(tmp_path, capsys):
    out = report(capsys, "--full", "--scenario", save(tmp_path, 65))
    assert "Summary:" not in out and "Matrix(65x65)" in out


def test_more_keys_than_64_is_enough(tmp_path, capsys):
    out = report(capsys, "--scenario", save(tmp_path, 5, 65, mask="none"))
    assert "Summary: 5 queries x 65 keys, above 64" in out and "Matrix(" not in out


@pytest.mark.parametrize("T", [65, REPORT_JSON_MAX])
def test_json_up_to_512_tokens_is_complete(tmp_path, capsys, T):
    d = json.loads(report(capsys, "--json", "--scenario", save(tmp_path, T)))
    assert "summary" not in d and len(d["A"]) == T and len(d["A"][0]) == T and len(d["row_entropy_bits"]) == T


def test_json_above_512_tokens_is_still_the_summary(tmp_path, capsys):
    d = json.loads(report(capsys, "--json", "--scenario", save(tmp_path, REPORT_JSON_MAX + 1)))
    assert d["summary"] is True and "A" not in d


@pytest.mark.parametrize("name", BUILTINS)
def test_the_lessons_scenarios_print_in_full(capsys, name):
    out = report(capsys, "--scenario", name)
    assert "Summary:" not in out and "A =" in out


def test_the_help_states_the_thresholds(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "the text summarises above 64 tokens, the JSON above 512" in help_text
