"""docs/COMMANDS.md's schema of the `heads` JSON is what the commands print (issue 51): every field the
JSON holds is a row of the page's tables, and every row names a field the JSON holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attn_tui.core.heads import open_heads
from attn_tui.core.heads.capture_check import stored_check
from attn_tui.report.heads_text import heads_json
from attn_tui.report.rollout_text import rollout_json

DOC = Path(__file__).resolve().parents[2] / "docs" / "COMMANDS.md"


def documented(header: str) -> set[str]:
    """The fields of the table whose first header cell is ``header``: each row's `names`."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split(f"| {header} | what it is |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split(" | ", 1)[0] for line in table.splitlines()[2:]]
    return {name for row in rows for name in re.findall(r"`([^`]+)`", row)}


def paths(value, prefix: str = "") -> set[str]:
    """Every field of a JSON object as the page writes it: `heads[].query.top[].weight`; a list of
    objects (or an empty one: the objects it may hold) is `name[]`, any other value `name`."""
    out = set()
    for k, v in value.items():
        name = f"{prefix}.{k}" if prefix else k
        if isinstance(v, list) and (not v or isinstance(v[0], dict)):
            out.add(f"{name}[]")
            for item in v:
                out |= paths(item, f"{name}[]")
        else:
            out |= {name} | (paths(v, name) if isinstance(v, dict) else set())
    return out


def test_heads_json_fields_are_the_documented_ones(tmp_path):
    src = open_heads("induction-demo", "a b c a b c")
    printed = paths(json.loads(heads_json(src, query=3)))
    plain = paths(json.loads(heads_json(src)))
    assert not {p for p in plain if ".query" in p or "prediction" in p}  # query and prediction only with --query
    assert not {p for p in printed if p.startswith("combine") or p.endswith("_token")}  # no readings with --query
    doc = documented("`heads --json` field")
    assert src.has("A")  # the demo holds its own A: every field, the optional one too
    assert printed | plain == doc, ((printed | plain) - doc, doc - (printed | plain))


def test_a_file_without_A_prints_every_field_but_its_check(tmp_path):
    """The one optional field: a file without the model's own A (nor a capture's check) has no own_A."""
    import numpy as np

    from attn_tui.core.heads.multihead_write import save_heads

    src = open_heads("induction-demo", "a b a b")
    L, H = src.n_layers, src.n_heads
    Q, K, V = (np.array([[src.read(x, ly, h) for h in range(H)] for ly in range(L)]) for x in "QKV")
    path = tmp_path / "no_A.npz"
    save_heads(str(path), Q, K, V, tokens=list(src.tokens))
    other = open_heads(str(path))
    assert not other.has("A") and stored_check(other) is None
    printed = paths(json.loads(heads_json(other, query=2))) | paths(json.loads(heads_json(other)))
    combine = {f"combine[].{k}" for k in ("layer", "max_abs_diff", "tolerance", "holds")}  # no W_O: none
    prediction = {p for p in documented("`heads --json` field") if p.startswith("prediction.")}  # null: no model
    expected = documented("`heads --json` field") - {"heads[].own_A_max_abs_diff"} - combine - prediction
    assert printed == expected | {"prediction_none"}, (printed - expected, expected - printed)
    assert "prediction_none" in documented("`heads --json` field, a file's prediction")  # null: why, in a line


def test_a_captured_files_prediction_prints_the_documented_fields(tmp_path):
    """A file with its model's prediction (tests/core/captured_files.py): with the heads' parts, without
    them, and with none; every field printed is on the page, and every field of the page's table is printed."""
    from tests.core.captured_files import write_captured

    printed = set()
    for name, change in (
        ("a", {}),
        ("b", {"top_readout": None}),
        ("c", dict.fromkeys(("top_ids", "top_p", "top_logit", "top_readout", "top_tokens"))),
    ):
        write_captured(tmp_path / f"{name}.safetensors", hostile=change)
        printed |= paths(json.loads(heads_json(open_heads(str(tmp_path / f"{name}.safetensors")), query=2)))
    doc = documented("`heads --json` field") | documented("`heads --json` field, a file's prediction")
    assert printed - doc == set(), printed - doc
    assert documented("`heads --json` field, a file's prediction") <= printed
    assert "prediction.direct" not in printed  # the file's parts are the heads' and the rest, not a direct path


@pytest.mark.parametrize("query", [None, "2,3"])
def test_rollout_json_fields_are_the_documented_ones(query):
    src = open_heads("induction-demo", "a b c a b c")
    d = json.loads(rollout_json(src, query))
    assert paths(d) == documented("`heads --rollout --json` field")
