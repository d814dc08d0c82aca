"""The State of a large scenario (T above 512): a LazyTrace, and every figure it hands the panes
equal to the full trace's (Scenario.run()) where both can be computed."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.diagnose import ceiling_bits
from attn_tui.core.lazy import LazyTrace
from attn_tui.core.lenses import rank_info
from attn_tui.core.modes import explanations
from attn_tui.core.scenario import Scenario
from attn_tui.tui.state import State

T = 520


def scenario(**kw):
    """The same numbers for every test whatever ran before it in this worker (a module-level generator
    gave each case what the tests before it had left: a float16 case drawn so failed once in CI)."""
    rng = np.random.default_rng(11)
    return Scenario(Q=rng.standard_normal((T, 4)), K=rng.standard_normal((T, 4)), V=rng.standard_normal((T, 3)), **kw)


@pytest.mark.parametrize(
    "kw",
    [{}, {"mask": "none", "padding": tuple(range(1, T + 1)), "fill": "-inf"}, {"padding": (1,), "dtype": "float16"}],
)
def test_large_state_figures_equal_the_full_traces(kw):
    st = State(scenario(**kw))
    full = st.scenario.run()
    assert st.large and isinstance(st.trace, LazyTrace)
    np.testing.assert_array_equal(st.ceiling, ceiling_bits(full.blocked))
    if len(full.nan_rows) <= 8:  # the same lines as the full trace's
        assert st.explanations == tuple(explanations(st.scenario, full))
    else:  # every row NaN: the first eight named
        assert st.explanations == (
            "NaN in row t1, t2, t3, t4, t5, t6, t7, t8 ...: " + explanations(st.scenario, full)[0].split(": ", 1)[1],
        )
    info, want = st.rank, rank_info(full.S, full.Q, full.K)
    assert [info[k] for k in ("S", "Q", "K", "d_k")] == [want[k] for k in ("S", "Q", "K", "d_k")]
    # S's singular values from the streamed rows and from the whole S, each rounded to the scenario's dtype
    rtol = max(1e-6, float(np.finfo(st.scenario.dtype).eps))
    np.testing.assert_allclose(info["singular_values"], want["singular_values"][:4], rtol=rtol, atol=1e-9)
    for name in ("S", "A", "O"):
        lo, hi = st.trace.bounds(name)  # what a large grid is coloured by (views.grids.large_range)
        v = np.asarray(getattr(full, name), dtype=np.float64)
        v = v[np.isfinite(v)]
        if name == "S":  # from a sample of rows (core.stream.score_range): inside S's range, and near its ends
            slack = 4 * float(np.finfo(full.S.dtype).eps) * max(abs(lo), abs(hi))
            assert v.min() - slack <= lo < 0.7 * v.min() and 0.7 * v.max() < hi <= v.max() + slack
        else:
            assert v.size == 0 or (lo <= v.min() and v.max() <= hi)


def test_small_states_keep_the_full_trace():
    s = Scenario(Q=np.eye(3), K=np.eye(3))
    st = State(s)
    assert not st.large and isinstance(st.trace.A, np.ndarray)


def test_a_keypress_computes_only_what_is_read(tiles_computed):
    st = State(scenario()).scale_by(1.1)
    A = st.trace.A
    A[100:110, 0:80]  # the cells a grid shows, inside one tile (ROWS x COLS = 16 x 512)
    assert tiles_computed(A) == 1
    assert len(st.trace._stats) == 1  # the row statistics of one block of ROWS rows


def test_the_cost_lens_says_s_is_never_stored_when_large():
    from rich.console import Console

    from attn_tui.tui.views.lenses import cost

    console = Console(width=300, record=True, file=__import__("io").StringIO())
    console.print(cost(State(scenario())))
    text = console.export_text()
    from attn_tui.core.limits import gib

    assert f"here: S in float64 would be {gib(8 * T * T)}; it is never stored." in text and gib(8 * T * T) == "2 MiB"
    console = Console(width=300, record=True, file=__import__("io").StringIO())
    console.print(cost(State(Scenario(Q=np.eye(3), K=np.eye(3)))))
    assert "never stored" not in console.export_text()
