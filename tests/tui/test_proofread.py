"""Issue 30's proofread, each sentence against the core: the gradient lens on a tied row, the box
kernel's A in every mode, the rank lens's reading, the lens panels' own HELP on screen."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console

from attn_tui.core.builtins import builtin
from attn_tui.tui.state import State
from attn_tui.tui.views import lenses as lens_text
from attn_tui.tui.views import rank_lens
from attn_tui.tui.views.box_note import zero_scores_words


def text(renderable, width: int = 200) -> str:
    with open("/dev/null", "w") as sink:
        con = Console(width=width, record=True, file=sink)
        con.print(renderable)
        return con.export_text()


def test_the_gradient_lens_says_what_a_tied_row_does():
    """Pipeline row 5 ties mat and it: p → 1/2 and p(1−p) stays 1/4 as c grows, it does not → 0."""
    s = builtin("lesson-pipeline")
    tied = text(lens_text.gradient(State(s, row=4)))
    assert "ties 2 keys" in tied and "p → 1/2" in tied and "p(1−p) = 0.250" in tied
    assert "As p → 1 every p(1−p) → 0" not in tied
    big = s.with_(c=16.0).run().A[4]  # the core at a large c: the tied pair keeps 1/2 each
    assert big[0] == pytest.approx(0.5, abs=1e-6) and big[0] * (1 - big[0]) == pytest.approx(0.25, abs=1e-6)
    one = text(lens_text.gradient(State(s, row=3)))
    assert "leading p → 1 and every p(1−p) → 0" in one
    a = s.with_(c=16.0).run().A[3]
    assert np.max(a * (1 - a)) < 1e-12


@pytest.mark.parametrize(
    "changes",
    [{}, {"mask": "none"}, {"mask": "window", "window": 2}, {"padding": (2,)}],
    ids=["causal", "none", "window", "padding"],
)
def test_the_box_kernel_note_says_what_a_becomes_in_the_current_mode(changes):
    s = builtin("lesson-pipeline").with_(**changes)
    zero = s.with_(W_Q=np.zeros_like(s.W_Q), W_K=np.zeros_like(s.W_K))
    A = zero.run().A
    words = zero_scores_words(s)
    visible = ~s.blocked()
    assert np.allclose(A, visible / visible.sum(axis=1, keepdims=True))  # uniform over what a row may read
    if changes == {}:
        assert "prefix average W_avg" in words
    elif changes.get("mask") == "none":
        assert "not W_avg" in words and f"1/{s.T_k} each" in words and np.allclose(A, 1 / s.T_k)
    elif changes.get("mask") == "window":
        assert "last w = 2 keys" in words and A[4, 3] == pytest.approx(0.5) and A[4, 0] == 0
    else:
        assert "skipping the padded key 2" in words and A[2, 1] == 0 and A[2, 0] == pytest.approx(0.5)


def test_the_box_kernel_note_in_cross_attention_is_not_the_prefix_average():
    s = builtin("cross-attention")
    words = zero_scores_words(s)
    zero = s.with_(W_Q=np.zeros_like(s.W_Q), W_K=np.zeros_like(s.W_K)).run().A
    assert "W_avg" in words and "not W_avg" in words and np.allclose(zero, 1 / s.T_k)


def test_the_rank_lens_reads_rank_s_as_the_lesson_does():
    for name in ("lesson-pipeline", "lesson-handcrafted"):
        st = State(builtin(name), row=3)
        out = text(rank_lens.rank_reading(st))
        rs, ra = np.linalg.matrix_rank(st.trace.S), np.linalg.matrix_rank(st.trace.A)
        assert (rs, ra) == (2, 5)  # the lesson: rank S = 2 on both, A full rank
        assert f"ask only {rs} independent questions" in out and "can pose at most d_k" in out
        assert "cannot realise an arbitrary T×T pattern" in out
        assert f"rank A = {ra} while rank S = {rs}. The budget is on the scores" in out
        assert "A causal A is always full rank" in out


async def test_the_lens_panels_show_their_help_sentences(settle):
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.views.lenses import PANELS
    from attn_tui.tui.widgets.lens_panels import LensPanel, RankPanel

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await settle(pilot)
        for pid, (_build, _title, help) in PANELS.items():
            panel = app.screen.query_one(f"#{pid}", LensPanel)
            shown = " ".join(text(panel.content).split())
            assert help and " ".join(help.split()) in shown, pid
        rank = app.screen.query_one(RankPanel)
        shown = " ".join(text(rank.query_one("#rank-text").content).split())
        assert RankPanel.HELP in shown and "The budget is on the scores" in shown


def test_the_cost_lens_says_which_variant_attacks_what():
    from attn_tui.core import lenses
    from attn_tui.tui.views.cost_lens import cost

    s = builtin("lesson-pipeline")
    out = " ".join(text(cost(State(s))).split())
    assert "Without a mask FlashAttention still does all 2T²d_k multiply-adds (QKᵀ and AV)" in out
    assert "under a causal mask FlashAttention-2 skips the tiles wholly above the diagonal, about half" in out
    assert "removes the T² memory and cuts the traffic, which still grows as T² (tiles, online softmax)" in out
    assert "sliding window of w keys makes the work O(T·w); linear attention O(T·d²)" in out
    c = lenses.score_cost(8, 4)  # 2T²d_k multiply-adds = FLOPs of S and O together / 2 (d_v = d_k)
    assert (c["flops_S"] + c["flops_O"]) // 2 == 2 * 8 * 8 * 4


def test_the_scale_sweep_widens_its_axis_instead_of_clipping():
    """The lesson's ylim([-3, 6]) clips key t6 at c >= 1.5 (and t1/t8 near c = 3): the app widens it."""
    from attn_tui.core import experiments
    from attn_tui.report import sweep_svg

    frames = experiments.scale_sweep()
    lo, hi = experiments.sweep_ylim(frames)
    everything = np.concatenate([f["scores"] for f in frames])
    assert everything.min() < -3 and lo <= everything.min() and hi >= everything.max()
    assert (lo, hi) == (np.floor(everything.min()), max(6.0, np.ceil(everything.max())))
    svg = sweep_svg.frame_svg(frames[-1], [f"t{i}" for i in range(1, 9)], (lo, hi))
    assert f">{lo:g}</text>" in svg and f">{hi:g}</text>" in svg
