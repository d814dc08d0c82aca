"""The token view's numbers (views/token_view.py): row t of A or its column, what the mask hides,
the five heaviest; checked against A recomputed from Q and K here, not read off the trace."""

from __future__ import annotations

import numpy as np

from attn_tui.core import builtin
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.state import State
from attn_tui.tui.views import token_view as tv

EPS = np.finfo(np.float64).eps


def _weights(s) -> np.ndarray:
    """softmax(c·QKᵀ/√d_k + causal mask) row by row, written out here."""
    S = s.c * (s.X @ s.W_Q) @ (s.X @ s.W_K).T / np.sqrt(s.d_k) if s.projected else s.c * s.Q @ s.K.T / np.sqrt(s.d_k)
    A = np.zeros_like(S)
    for t in range(len(S)):
        e = np.exp(S[t, : t + 1] - S[t, : t + 1].max())
        A[t, : t + 1] = e / e.sum()
    return A


def test_row_t_is_where_t_looks_and_the_future_is_masked():
    st = State(builtin("lesson-pipeline"), row=3)  # t4 "it"
    w = tv.weights_of(st, tv.OUT, 3)
    A = _weights(st.scenario)
    assert np.allclose(w.values, A[3], rtol=0, atol=16 * EPS)
    assert w.seen.tolist() == [True, True, True, True, False]
    view = tv.token_view(st, w)
    assert np.isnan(view.weights[4]) and view.selected == 3
    assert view.top.startswith("keys it looks at most: t1 mat 0.870")  # the lesson's A(4,1) = 0.870
    assert "t4 it" in view.title and "t4 t4" not in view.title  # the lesson's labels carry their position


def test_column_t_is_who_looks_at_t():
    st = State(builtin("lesson-pipeline"))
    w = tv.weights_of(st, tv.IN, 0)  # who looks at t1 "mat"
    A = _weights(st.scenario)
    assert np.allclose(w.values, A[:, 0], rtol=0, atol=16 * EPS) and w.seen.all()
    view = tv.token_view(st, w)
    assert view.top.startswith("queries that look at it most: t1 mat 1.000 · t2 was 0.953")
    assert "who looks at t1 mat" in view.title


def test_repeated_tokens_are_named_by_position():
    s, ref = open_ref("induction-demo", "q w e q w e")
    st = State.opening(s, head=ref)
    view = tv.token_view(st, tv.weights_of(st, tv.OUT, 4))  # the second "w"
    assert "who does t5 w look at" in view.title
    texts, joined = tv.texts_of(st, tv.OUT)
    assert texts == ("q", "w", "e", "q", "w", "e") and not joined
    heaviest = int(np.nanargmax(view.weights))
    assert view.top.split(": ")[1].startswith(f"t{heaviest + 1} {texts[heaviest]}")


def test_the_legend_says_what_stands_for_colour():
    assert "bar" in tv.legend(True) and "colour scale" in tv.legend(False)
    assert tv.who(("t1 mat", "mat"), 0) == "t1 mat" and tv.who(("t1 mat", "mat"), 1) == "t2 mat"
