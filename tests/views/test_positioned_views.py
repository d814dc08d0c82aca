"""Issue 39, item 1: every label of a sequence whose tokens repeat carries its position, as the
lesson writes "t4 it": the grids' rows and columns, the chart's bars and row, the status line, the
inspector, the lenses' tables, `report` and `heads` text; JSON keeps the raw tokens. A sequence with
no repeated label keeps its labels (the lesson's own "t1 mat" … "t5 was"). Shown on induction-demo,
a file made as a capture makes one (tokenizer labels, " The" twice) and a 4,096-token file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core.builtins import builtin
from attn_tui.core.heads.demo import DEFAULT_TOKENS
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.report.as_json import scenario_dict
from attn_tui.report.heads_text import heads_json, heads_text
from attn_tui.report.text import scenario_text
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.state import State
from attn_tui.tui.views.chart import chart_view
from attn_tui.tui.views.grids import grid_view
from attn_tui.tui.views.heads_view import tokens_line
from attn_tui.tui.views.inspector import inspector_lines
from attn_tui.tui.views.status import status_view
from attn_tui.tui.widgets.palette import LABEL_MAX, fit_label

CAPTURED = [" The", " cat", " sat", " on", " the", " mat", ".", " The", " cat", " sat", "↵"]


def _named(tokens) -> tuple:
    """What the lesson writes: "t1 q", counted from 1 (an independent construction)."""
    return tuple(f"t{i + 1} {tok}" for i, tok in enumerate(tokens))


def _file(path, tokens, L=1, H=2, d=4, seed=3) -> str:
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((L, H, len(tokens), d)).astype(np.float32) for _ in range(3))
    save_heads(path, Q, K, V, tokens=list(tokens), mask="causal", scale=[d**-0.5] * L, title="made by hand")
    return str(path)


@pytest.fixture(params=["induction-demo", "captured", "long"])
def opened(request, tmp_path):
    """(State on query row 11, its raw tokens) for each kind of source."""
    if request.param == "induction-demo":
        s, ref = open_ref("induction-demo")
        raw = DEFAULT_TOKENS.split()
    elif request.param == "captured":
        s, ref = open_ref(_file(tmp_path / "captured.npz", CAPTURED))
        raw = [t.strip() for t in CAPTURED]  # the door strips a label's surrounding whitespace
    else:
        raw = [f"tok{t % 300}" for t in range(4096)]  # repeats every 300
        s, ref = open_ref(_file(tmp_path / "long.npz", raw, d=2))
    assert s.tokens == tuple(raw)
    return State.opening(s, ref).with_(row=10), tuple(raw)


def test_grids_rows_and_columns_carry_positions(opened):
    state, raw = opened
    for name in ("S", "A", "O", "H"):
        view = grid_view(name, state)
        assert view.rows == _named(raw), name
    assert grid_view("A", state).cols == _named(raw)


def test_status_inspector_and_chart_name_the_row_by_position(opened):
    state, raw = opened
    row = f"t11 {raw[10]}"
    assert any(p.long == f"row {row}" for p in status_view(state).parts)
    lines = "\n".join(inspector_lines(state.with_(cursor=("A", 10, 0))))
    assert f"(row {row}, key t1 {raw[0]})" in lines
    chart = chart_view(state)
    assert chart.row == "t11"
    wide = chart.bars(room=40, width=90).labels
    drawn = [lab.strip() for lab in wide]
    assert all(d.startswith(f"t{int(d.split()[0][1:])} ") for d in drawn)  # "t4 r" or "t4 r ×", a position each
    narrow = chart.bars(room=40, width=12).labels  # no room for the tokens: the positions alone
    assert all(lab.strip().split()[0][0] == "t" and lab.strip().split()[0][1:].isdigit() for lab in narrow)


def test_report_text_positions_and_json_keeps_the_raw_tokens(opened):
    state, raw = opened
    s = state.scenario
    if s.T > 64:
        pytest.skip("the report of a large T is its summary: test_summary_text_positions")
    text = scenario_text(s)
    assert "tokens: " + ", ".join(_named(raw)) in text
    assert "keys:   " + ", ".join(_named(raw)) in text
    d = scenario_dict(s)
    assert d["tokens"] == list(raw) and d["key_tokens"] == list(raw)


def test_heads_text_and_json(opened):
    state, raw = opened
    src = state.head.source
    text = heads_text(src)
    spaced = any(t != t.strip() for t in src.tokens)  # a captured " The": quoted, so its space shows
    named = [f"t{i} {t!r}" for i, t in enumerate(src.tokens, 1)] if spaced else _named(raw)
    first = ", ".join(named[:24])
    assert f"tokens: {first}" in text
    assert json.loads(heads_json(src))["tokens"] == list(src.tokens)  # raw: a captured " The" keeps its space
    assert [t.strip() for t in src.tokens] == list(raw)
    assert tokens_line(src).startswith("tokens: " + "  ".join(_named(raw)[:3]))


def test_a_cut_label_keeps_its_position():
    long = f"t118 {'tokenizer'}"
    assert fit_label(long, LABEL_MAX) == "t118 to…"
    assert fit_label(long, 4) == "t118"


def test_the_lessons_pipeline_keeps_its_labels():
    """The lesson repeats "was" (t2, t5) and writes the positions itself: nothing is added."""
    s = builtin("lesson-pipeline")
    state = State(s).with_(row=4)
    assert grid_view("A", state).rows == ("t1 mat", "t2 was", "t3 soft", "t4 it", "t5 was")
    assert any(p.long == "row t5 was" for p in status_view(state).parts)
    assert chart_view(state).names == ()  # the chart's bars keep their short names ("t5")
    assert "tokens: t1 mat, t2 was, t3 soft, t4 it, t5 was" in scenario_text(s)


def test_summary_text_positions(tmp_path):
    from attn_tui.report.summary import summary_text

    raw = [f"w{t % 7}" for t in range(600)]
    s, _ = open_ref(_file(tmp_path / "mid.npz", raw, d=2))
    assert "tokens: t1 w0, t2 w1, t3 w2" in summary_text(s)
