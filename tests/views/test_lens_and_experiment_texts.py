"""The lens and experiment texts against the core (issue 16): the correlation receiver,
memory, box kernel, cost, the equation pane, the RNG note and the lesson's printed figures.
"""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console

from attn_tui.core import experiments, lenses
from attn_tui.core.builtins import builtin
from attn_tui.tui.state import State
from attn_tui.tui.views import cost_lens, exp_notes, lesson_panes
from attn_tui.tui.views import lenses as lens_text


def text(renderable, width: int = 200) -> str:
    with open("/dev/null", "w") as sink:
        con = Console(width=width, record=True, file=sink)
        con.print(renderable)
        return con.export_text()


# -- the correlation receiver ---------------------------------------------------------------
def test_correlation_row_correlates_the_query_against_every_key():
    tr = builtin("lesson-pipeline").run()
    r = lenses.correlation_row(tr.Q, tr.K, 3, tr.scale, tr.blocked)
    np.testing.assert_array_equal(r["raw"], tr.Q[3] @ tr.K.T)  # q_t·k_i for all i, masked ones too
    np.testing.assert_allclose(r["scores"], tr.S[3])
    assert (r["peak"], r["margin"], r["noise_sd"], r["noise_sd_scores"]) == (0, 3.0, 2.0, 1.0)
    assert r["ratio"] == pytest.approx(tr.A[3, 0] / tr.A[3, 1])  # the soft-argmax: e^margin
    assert not r["visible"][4]


def test_correlation_lens_reads_peak_margin_and_noise_floor():
    st = State(builtin("lesson-pipeline"), row=3)
    out = text(lesson_panes.correlation(st))
    assert "template q_t = [2, 0, 0, 0] of 't4 it', every key:" in out
    assert "peak 't1 mat' (3.000), margin 3.000 over the 3 runners-up ('t2 was', 't3 soft', 't4 it')" in out
    assert f"e^3.00 = {np.exp(3):.2f}× the weight of each (A = 0.870)" in out
    assert "q·k has sd √d_k = 2.00; 1/√d_k returns it to 1" in out and "floor sd 1.00" in out
    unscaled = text(lesson_panes.correlation(st.with_scenario(scaled=False)))
    assert "c·q·k unscaled" in unscaled and "floor sd 2.00" in unscaled
    tie = text(lesson_panes.correlation(State(builtin("lesson-handcrafted"), row=4)))
    assert "the peak ties 3 keys ('t1', 't2', 't4'; margin 0)" in tie
    assert "splits its weight among them (0.237 each)" in tie


def test_the_receiver_is_a_lens_on_the_lenses_screen_and_in_the_tour():
    from attn_tui.tui.screens.tour import LENS_PANES
    from attn_tui.tui.tour_text import PAGES

    assert lens_text.PANELS["lens-corr"][0] is lesson_panes.correlation
    assert LENS_PANES["corr"][0] is lesson_panes.correlation
    page = next(p for p in PAGES if p.key == "receiver")
    assert "corr" in page.panes
    for words in (
        "correlates one template (the query) against every stored waveform (the keys)",
        "Softmax is a soft-argmax detector on the correlator outputs",
        "1/√d_k normalises the noise floor",
    ):
        assert words in page.text


# -- memory, box kernel, cost ----------------------------------------------------------------
def test_memory_row5_matches_three_addresses_and_blends_them():
    st = State(builtin("lesson-handcrafted"), row=4)
    A = st.trace.A[4]
    out = text(lens_text.memory(st))
    assert f"matches 3 addresses equally ({A[0]:.3f} each)" in out and f"at most {A[2]:.3f}" in out
    assert (f"{A[0]:.3f}", f"{A[2]:.3f}") == ("0.237", "0.144")
    assert "no content preference" not in out


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_box_kernel_is_w_avg_up_to_rounding_in_low_precision(dtype):
    st = State(builtin("box-kernel").with_(dtype=dtype), row=3)
    diff = lenses.max_abs_diff(st.trace.A, lenses.prefix_average(5))
    assert 0 < diff <= lenses.rounding_bound(dtype)
    out = text(lens_text.box_kernel(st))
    assert f"A equals W_avg up to {dtype} rounding" in out and "content decides" not in out


def test_box_kernel_still_says_content_decides_when_it_does():
    out = text(lens_text.box_kernel(State(builtin("lesson-pipeline"), row=3)))
    assert "content decides" in out


def test_cost_lens_counts_t_by_t_prime_in_cross_attention():
    st = State(builtin("cross-attention"), row=0)
    out = text(lens_text.cost(st))
    c = lenses.score_cost(5, st.scenario.d_k, T_k=3)
    assert c["entries"] == st.trace.S.size == 15
    assert f"S is T×T′ = 5×3 = {c['entries']} entries" in out
    assert "(now)" not in out  # the T×T table is exercise 5's self-attention, not this scenario
    assert "Ex. 5 self-attention: S is T×T" in out


def test_equation_pane_keeps_c_and_says_when_unscaled():
    s = builtin("cross-attention")
    out = lesson_panes.equation(State(s)).plain
    assert "softmax(c·QKᵀ/√d_k + M) V" in out and "K = Y W_K (3×4)" in out
    assert "S = c·QKᵀ/√d_k (5×3)" in out
    raw = lesson_panes.equation(State(s.with_(scaled=False))).plain
    assert "softmax(c·QKᵀ (unscaled) + M) V" in raw and "/√d_k" not in raw


def test_nw_lens_defines_kappa_with_c():
    st = State(builtin("lesson-pipeline"), row=3)
    assert "κ_i = exp(s_ti) = exp(c·q_t·k_i/√d_k), c = 1.00" in text(lens_text.nadaraya_watson(st))
    assert "κ = exp(c·q·k/√d_k)" in lens_text.PANELS["lens-nw"][1]


# -- experiments: the RNG note and the lesson's printed figures ---------------------------
def test_the_seeds_the_note_names_are_the_seeds_the_core_draws_with():
    rows = experiments.variance((4, 64, 512, 128), n=500, seed=8)
    for j, r in enumerate(rows):
        dots = experiments.dot_samples(r["d_k"], 500, 8 + j)
        assert r["var"] == float(np.mean(dots**2))
    note = exp_notes.rng_note([4, 64, 512, 128], 500, 8)
    assert "seeds 8, 9, 10, 11 for d_k = 4, 64, 512, 128; 8 for the saturation row, 16 for the sweep" in note
    assert exp_notes.SWEEP_SEED == 16
    assert "not the lesson's generator" in note


def test_report_rng_note_names_the_seeds_it_uses():
    from attn_tui.report.text import RNG_NOTE

    assert "seeds 8, 9, 10 for d_k = 4, 64, 512, 8 for the saturation row, 16 for the sweep" in RNG_NOTE
    assert experiments.variance()[1]["var"] == float(np.mean(experiments.dot_samples(64, 5000, 9) ** 2))


def test_lesson_printed_figures_are_the_lessons_and_shown_beside_the_apps():
    from attn_tui.tui.widgets.exp_panels import saturation_text, variance_table

    printed = exp_notes.LESSON_PRINTED
    assert printed["variance"][64][1] == printed["variance"][64][0] / 64
    rows = experiments.variance()
    table = variance_table(rows, printed["variance"])
    assert table.columns[-1].header == "the lesson\nprinted\nVar/d_k"
    out = text(table)
    assert "0.986" in out and "1.004" in out and "1.032" in out
    assert f"{rows[0]['ratio']:.3f}" in out
    sat = text(saturation_text(experiments.saturation(), printed["saturation"]))
    assert "unscaled" in sat and "the lesson printed" in sat and "1.9e-12" in sat and "0.524" in sat
    cmp = exp_notes.sweep_compare()
    here = ", ".join(f"{h:.2f}" for h in experiments.entropies_at((0.1, 1.0, 3.0)))
    assert f"here {here} bits; the lesson printed 3.00, 2.26, 0.17 bits" in cmp


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_histogram_densities_stand_sqrt_dk_taller(d_k):
    from attn_tui.tui.widgets.exp_panels import densities

    dots = experiments.dot_samples(d_k, 20000, 8)
    x1, y1, x2, y2, ratio = densities(dots, d_k)
    w1, w2 = x1[1] - x1[0], x2[1] - x2[0]
    assert w1 == pytest.approx(np.sqrt(d_k) * w2)
    assert 0.95 < y1.sum() * w1 <= 1 and 0.95 < y2.sum() * w2 <= 1  # densities: area 1 less the tails
    assert ratio == pytest.approx(np.sqrt(d_k), rel=0.12)


def test_memory_says_about_equally_when_the_tie_is_not_exact():
    words = lens_text._tie_words("t5", 0.30, [0.29, 0.28], [0.13])
    assert words == (
        "'t5' matches 3 addresses about equally (0.280–0.300) and blends them; the other 1 get at most 0.130."
    )


def test_receiver_on_a_fully_masked_row_says_why_there_is_no_peak():
    out = text(lesson_panes.correlation(State(builtin("padding-nan"), row=0)))
    assert "every key is masked for this row: nothing to detect." in out


def test_cost_table_fits_a_lens_at_16384_tokens():
    from attn_tui.core.scenario import Scenario

    rng = np.random.default_rng(2)
    T = 16384
    st = State(Scenario(Q=rng.standard_normal((T, 64)), K=rng.standard_normal((T, 64)), V=np.ones((T, 2))))
    out = text(lens_text.cost(st), width=55)  # the lens's inner width at 120 columns
    assert "…" not in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()[:1].isdigit()}
    for t in (5, 512, 4096, T, 32768):
        c = lenses.score_cost(t, 64)
        assert f"{c['entries']:,}" in rows[str(t)] and f"{c['flops_S']:,}" in rows[str(t)]
    assert rows["16384"][1] == "(now)" and rows["16384"][-2:] == ["1", "GiB"]  # 4 · 16384² bytes
    assert rows["5"][-2:] == ["100", "B"] and rows["512"][-2:] == ["1", "MiB"]
    assert cost_lens._bytes(36_000_000) == "34.3 MiB" and cost_lens._bytes(1023) == "1023 B"


def test_memory_content_says_when_o_t_has_more_components_than_shown():
    from attn_tui.core.random_scenario import random_scenario

    out = text(lens_text.memory(State(random_scenario(T=6, d_v=9), row=4)))
    assert out.count("v1 ") == 1 and "v6 " in out and "v7 " not in out and "… (9 in all)]" in out
    assert "in all" not in text(lens_text.memory(State(random_scenario(T=6, d_v=6), row=4))).split("= [")[-1]


def test_one_runner_up_is_not_each_and_many_addresses_are_a_whole_number():
    from attn_tui.core.scenario import Scenario

    s = Scenario(Q=np.array([[1.0, 0.0]] * 3), K=np.array([[3.0, 0.0], [1.0, 0.0], [0.0, 0.0]]), mask="none")
    st = State(s, row=0)
    out = text(lesson_panes.correlation(st))
    assert "over the runner-up 't2'" in out and "× the weight of the runner-up (A = " in out, out
    T = 3000
    rng = np.random.default_rng(1)
    K = rng.standard_normal((T, 2))
    K[0] = (6.0, 0.0)  # one clear top key; the other 2999 spread the rest
    flat = Scenario(Q=np.tile([1.0, 0.0], (T, 1)), K=K, mask="none")
    st = State(flat, row=5)
    eff = float(st.trace.eff[5])
    assert eff > 100
    assert f"spreads its read over about {eff:,.0f} addresses" in text(lens_text.memory(st))
