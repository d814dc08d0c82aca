"""`attn-tui heads` and `report --layer/--head` end to end: the JSON's schema and numbers (the
core's readings), one head reported exactly as a single-head scenario, bad input in one line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.head_origin import head_origin
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.source import all_readings, head_scenario
from attn_tui.core.heads.weighting import source_w_o
from attn_tui.core.limits import admit
from attn_tui.report import as_json, text
from tests.core.headtools import save_source

KEYS = {"layer", "head", "mean_entropy_bits", "mean_ceiling_bits", "prev_token", "first_token", "self_token"}
KEYS |= {"induction", "duplicate_token"}


def attn(*args):
    return subprocess.run([sys.executable, "-m", "attn_tui", *args], capture_output=True, text=True, timeout=120)


def assert_bad_input(res, *words):
    assert res.returncode == 2, res
    err = res.stderr.strip()
    assert res.stdout == "" and err and "\n" not in err and "Traceback" not in err, res.stderr
    assert all(w in err for w in words), err


def test_heads_json_schema_and_numbers():
    res = attn("heads", "induction-demo", "--tokens", "q w e r q w e r", "--json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)["heads"]
    want = all_readings(open_heads("induction-demo", "q w e r q w e r"))
    assert [(r["layer"], r["head"]) for r in rows] == [(r.layer, r.head) for r in want] and len(rows) == 8
    for row, r in zip(rows, want):
        assert KEYS <= set(row)
        for key in KEYS:
            assert row[key] == getattr(r, key), key  # JSON floats round-trip exactly


def test_heads_layer_and_no_repeat_gives_null_induction():
    res = attn("heads", "induction-demo", "--tokens", "a b c d e", "--layer", "1", "--json")
    rows = json.loads(res.stdout)["heads"]
    assert {r["layer"] for r in rows} == {1} and len(rows) == 4
    assert all(r["induction"] is None and isinstance(r["prev_token"], float) for r in rows)


def test_heads_text_names_the_heads_it_found():
    res = attn("heads", "induction-demo")
    assert res.returncode == 0 and res.stderr == ""
    best = max(all_readings(open_heads("induction-demo"), 1), key=lambda r: r.induction)
    assert f"strongest induction head: layer 1, head {best.head} (induction = {best.induction:.3f})" in res.stdout
    assert "within the float64 rounding bound" in res.stdout and "BEYOND" not in res.stdout


@pytest.mark.parametrize("suffix", ["npz", "safetensors"])
@pytest.mark.parametrize("as_json_", [False, True])
def test_report_one_head_as_a_single_head_scenario(tmp_path, suffix, as_json_):
    path = save_source(open_heads("induction-demo", "q w e r q w e r"), tmp_path / f"demo.{suffix}")
    res = attn("report", "--scenario", str(path), "--layer", "1", "--head", "2", *(["--json"] if as_json_ else []))
    assert res.returncode == 0, res.stderr
    src = open_heads(str(path))
    s = admit(head_scenario(src, 1, 2), large=True)
    w_o_h = source_w_o(src, 1, 2)  # the JSON's A_info_weighted: the one thing a single head has not
    assert w_o_h is not None
    proj = head_origin(src, 1, 2)  # what the file holds beyond the head: d_model from W_O, its labels
    assert proj.d_model == src.shapes["W_O"][2] and proj.params is None
    want = as_json.scenario_json(s, str(path), w_o_h, proj) if as_json_ else text.scenario_text(s, str(path), proj)
    assert res.stdout == want


def bad_file(tmp_path):
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(2, 2, 4, 3)), rng.normal(size=(3, 2, 4, 3)), rng.normal(size=(2, 2, 4, 3))
    return save_heads(tmp_path / "bad.npz", Q, K, V)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["heads", "induction-demo", "--tokens", "q w 7"], ["token 3 is '7'"]),
        (["heads", "induction-demo", "--tokens", " ".join("abcdefghijklmnopqrstuvwxyzabcdefg")], ["33 tokens"]),
        (["heads", "induction-demo", "--layer", "2"], ["--layer: 2 is not a layer", "0..1"]),
        (["heads", "lesson-pipeline"], ["not a multi-head built-in"]),
        (["report", "--scenario", "induction-demo"], ["give --layer L --head H"]),
        (["report", "--scenario", "induction-demo", "--layer", "0", "--head", "4"], ["--head: 4 is not a head"]),
        (["report", "--scenario", "lesson-pipeline", "--layer", "0", "--head", "0"], ["multi-head scenario"]),
    ],
)
def test_bad_input_one_line_exit_2(args, words):
    assert_bad_input(attn(*args), *words)


def test_malformed_file_and_tokens_with_a_file(tmp_path):
    path = bad_file(tmp_path)
    assert_bad_input(attn("heads", str(path)), "bad.npz", "K: 3 layers, but Q has 2")
    assert_bad_input(attn("report", "--scenario", str(path), "--layer", "0", "--head", "0"), "K: 3 layers")
    good = save_source(open_heads("induction-demo"), tmp_path / "good.npz")
    assert_bad_input(attn("heads", str(good), "--tokens", "a b"), "--tokens", "fixed Q, K, V")


def test_heads_loads_no_ui_library():
    code = (
        "import sys; from attn_tui import cli; import io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()): rc = cli.main(['heads', 'induction-demo'])\n"
        "assert rc == 0 and not {'textual', 'rich'} & set(sys.modules), sorted(m for m in sys.modules if 'text' in m)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize(
    "module",
    ["attn_tui.core.heads.door", "attn_tui.core.heads.combine", "attn_tui.cli.heads", "attn_tui.report.heads_text"],
)
def test_heads_modules_load_no_ui_library(module):
    code = f"import sys, {module}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    assert "attn_tui" in loaded and not {"textual", "rich"} & loaded


def test_heads_text_of_a_grouped_file_states_each_layers_mask_and_scale(tmp_path):
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(2, 4, 10, 3)), rng.normal(size=(2, 2, 10, 3)), rng.normal(size=(2, 2, 10, 3))
    path = save_heads(tmp_path / "gqa.safetensors", Q, K, V, mask=["causal", "window:3"], scale=[0.5, 2.0])
    res = attn("heads", str(path))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[1].startswith("2 layers x 4 heads (2 K/V heads), T = 10 query tokens, T' = 10 keys, d_k = 3")
    assert "mask: by layer causal | window 3; scale: by layer 0.5 | 2" in lines
    assert "(the mean over rows of log2 of the keys each row sees" in res.stdout  # not log2 t: layer 1 sees <= 3 keys
