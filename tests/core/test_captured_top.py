"""A captured file's own prediction (core/heads/captured_top.py), on a file made here by the capture's
writer (tests/core/captured_files.py): the stored top k read back, each head's direct share of the top
logit recomputed here from the file's arrays, and every hostile variant of the new arrays refused at every
door in one line (the CLI: exit 2, no traceback)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.heads.captured_top import NO_PARTS, REST, WHY_NO_PARTS, predict_source, why_none
from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.prediction import NO_PREDICTION
from attn_tui.report.heads_text import heads_json
from tests.core.captured_files import TOKENS, VOCAB, own_shares, write_captured

F32 = float(np.finfo(np.float32).eps)


@pytest.mark.parametrize("t", [0, 3, 7])
def test_the_stored_top_and_each_heads_share_recomputed(tmp_path, t):
    a = write_captured(tmp_path / "c.safetensors")
    src = open_file(tmp_path / "c.safetensors")
    p = predict_source(src, t)
    assert [tok for tok, _ in p.top] == [VOCAB[i] for i in a["top_ids"][t, :5]]
    np.testing.assert_allclose([q for _, q in p.top], a["top_p"][t, :5], rtol=0, atol=0)  # read as stored
    assert p.logit == float(a["top_logit"][t, 0])
    want = own_shares({k: v.astype(np.float32).astype(np.float64) for k, v in a.items()}, t)
    tol = 64 * F32 * (1 + np.abs(want).max())
    for x in p.heads:
        assert x.logit == pytest.approx(want[x.layer, x.head], abs=tol)
    assert len(p.heads) == want.size
    assert p.direct_name == REST and p.direct == pytest.approx(p.logit - want.sum(), abs=want.size * tol)
    assert abs(sum(x.logit for x in p.parts) - p.logit) < 1e-9 * (1 + abs(p.logit))


def test_an_rms_norm_is_not_centred(tmp_path):
    a = write_captured(tmp_path / "c.safetensors", about={"k": 10, "by_head": None, "centred": False})
    p = predict_source(open_file(tmp_path / "c.safetensors"), 6)
    L, H = a["Q"].shape[:2]
    d_k = a["Q"].shape[3]
    u = a["top_readout"][6].astype(np.float64)
    h = next(x for x in p.heads if (x.layer, x.head) == (1, 1))
    s = a["Q"][1, 1, 6].astype(np.float64) @ a["K"][1, 1, :7].astype(np.float64).T / np.sqrt(d_k)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    o = (w @ a["V"][1, 1, :7].astype(np.float64)) @ a["W_O"][1, d_k:].astype(np.float32).astype(np.float64)
    assert h.logit == pytest.approx(o @ u, abs=64 * F32 * (1 + abs(o @ u)))


def test_without_top_readout_the_top_and_why_no_parts(tmp_path, capsys):
    write_captured(tmp_path / "c.safetensors", hostile={"top_readout": None}, about={"k": 10, "by_head": "norm"})
    src = open_file(tmp_path / "c.safetensors")
    p = predict_source(src, 2)
    assert p.parts == () and p.legend == WHY_NO_PARTS["norm"] and len(p.top) == 5
    d = json.loads(heads_json(src, query=2))["prediction"]
    assert "by_head" not in d and d["by_head_none"] == WHY_NO_PARTS["norm"]
    assert [x["token"] for x in d["top"]] == [tok for tok, _ in p.top]
    write_captured(tmp_path / "d.safetensors", hostile={"top_readout": None}, about={"k": 10})
    assert predict_source(open_file(tmp_path / "d.safetensors"), 2).legend == NO_PARTS


def test_a_file_with_no_prediction_says_why(tmp_path):
    write_captured(
        tmp_path / "c.safetensors",
        hostile={n: None for n in ("top_ids", "top_p", "top_logit", "top_readout", "top_tokens")},
    )
    src = open_file(tmp_path / "c.safetensors")
    assert src.top is None and predict_source(src, 1) is None
    assert why_none(src) == NO_PREDICTION  # no word of why in its provenance: the old files' line
    d = json.loads(heads_json(src, query=1))
    assert d["prediction"] is None and d["prediction_none"] == NO_PREDICTION


T = len(TOKENS)
HOSTILE = {
    "p above 1": (
        {"top_p": np.full((T, 10), 1.5, np.float32)},
        "top_p: row 1, column 1 is 1.5; each entry is a probability, finite in [0, 1]",
    ),
    "p NaN": (
        {"top_p": np.where(np.eye(T, 10) > 0, np.nan, 0.01).astype(np.float32)},
        "top_p: row 1, column 1 is nan; each entry is a probability, finite in [0, 1]",
    ),
    "p unsorted": (
        {"top_p": np.tile(np.linspace(0.01, 0.05, 10, dtype=np.float32), (T, 1))},
        "top_p: row 1 is not sorted; each row is heaviest first",
    ),
    "p past 1": ({"top_p": np.full((T, 10), 0.2, np.float32)}, "top_p: row 1 sums past 1; they are probabilities"),
    "logit inf": (
        {"top_logit": np.full((T, 10), np.inf, np.float32)},
        "top_logit: row 1, column 1 is inf; each entry is finite",
    ),
    "id past the labels": (
        {"top_ids": np.full((T, 10), 12, np.int32)},
        "top_ids: row 1, column 1 is 12; top_tokens has 12 labels",
    ),
    "id negative": (
        {"top_ids": np.full((T, 10), -1, np.int32)},
        "top_ids: row 1, column 1 is -1; top_tokens has 12 labels",
    ),
    "ids as floats": (
        {"top_ids": np.zeros((T, 10), np.float32)},
        "top_ids: float32 entries; token indices are integers",
    ),
    "rows past T": (
        {"top_p": np.full((T + 1, 10), 0.01, np.float32)},
        f"top_p: shape ({T + 1}, 10); the prediction's arrays are (T, k) = ({T}, 1..64), alike",
    ),
    "k too many": (
        {n: np.zeros((T, 65), np.int32 if n == "top_ids" else np.float32) for n in ("top_ids", "top_p", "top_logit")},
        f"top_ids: shape ({T}, 65); the prediction's arrays are (T, k) = ({T}, 1..64), alike",
    ),
    "no labels": (
        {"top_tokens": None},
        "top_tokens: missing; a stored prediction is top_ids, top_p, top_logit and top_tokens",
    ),
    "no p": ({"top_p": None}, "top_p: missing; a stored prediction is top_ids, top_p, top_logit and top_tokens"),
    "a label with an escape": ({"top_tokens": ["q\x1b[31m", *VOCAB[1:]]}, None),
    "a label with a bidi override": ({"top_tokens": ["\u202e" + "q", *VOCAB[1:]]}, None),
    "too many labels": (
        {"top_tokens": ["x"] * (T * 10 + 1)},
        f"top_tokens: give one label for each token top_ids holds (1 to {T * 10})",
    ),
    "readout's width": (
        {"top_readout": np.zeros((T, 7), np.float32)},
        f"top_readout: shape ({T}, 7); it is (T, d_model) = ({T}, W_O's d_model), with W_O and top_ids",
    ),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_prediction_is_refused_at_every_door(tmp_path, capsys, case):
    change, words = HOSTILE[case]
    path = tmp_path / "c.safetensors"
    write_captured(path, hostile=change)
    with pytest.raises(ValueError) as e:
        open_file(path)
    line = str(e.value)
    assert "\n" not in line and line.startswith(f"{path}: ")
    if words is not None:
        assert line == f"{path}: {words}"
    else:  # the labels' own admission (the tokens' words): it names the setting and the label
        assert line.startswith(f"{path}: top_tokens: label 1: ")
    for argv in (
        ["heads", str(path), "--query", "2", "--json"],
        ["report", "--scenario", str(path), "--layer", "0", "--head", "0"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert "Traceback" not in err and len(err.splitlines()) == 1 and line.split(": ", 1)[1] in err


def test_a_non_finite_readout_row_is_one_line_when_read(tmp_path, capsys):
    bad = np.zeros((T, 8), np.float32)
    bad[2, 3] = np.inf
    path = tmp_path / "c.safetensors"
    write_captured(path, hostile={"top_readout": bad})
    assert main(["heads", str(path), "--query", "3", "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "top_readout: row 3, column 4 is inf; entries must be finite" in err


def test_an_npz_holds_the_same_prediction_and_is_checked_the_same(tmp_path):
    """The .npz door: the arrays as members, top_tokens a 1-D member of strings (judged from its header:
    at most one label a stored token), provenance a JSON text; the same prediction, the same refusals."""
    a = write_captured(tmp_path / "c.safetensors")
    want = predict_source(open_file(tmp_path / "c.safetensors"), 5)
    about = json.dumps({"prediction": {"k": 10, "by_head": None, "centred": True}})
    members = {k: v.astype(np.float32) if k != "top_ids" else v for k, v in a.items()}
    np.savez(
        tmp_path / "c.npz", **members, tokens=np.array(TOKENS), top_tokens=np.array(VOCAB), provenance=np.array(about)
    )
    got = predict_source(open_file(tmp_path / "c.npz"), 5)
    assert got.top == want.top and got.parts == want.parts
    members["top_p"] = members["top_p"][:, ::-1].copy()
    np.savez(
        tmp_path / "d.npz", **members, tokens=np.array(TOKENS), top_tokens=np.array(VOCAB), provenance=np.array(about)
    )
    with pytest.raises(ValueError, match=r"d\.npz: top_p: row 1 is not sorted; each row is heaviest first$"):
        open_file(tmp_path / "d.npz")
    np.savez(tmp_path / "e.npz", **members, tokens=np.array(TOKENS), top_tokens=np.array(["x"] * 81))
    with pytest.raises(ValueError, match=r"e\.npz: top_tokens: 81 labels; this file's matrices have at most 80 rows"):
        open_file(tmp_path / "e.npz")
