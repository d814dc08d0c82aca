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


GERMAN = "Der Hund läuft schnell über die Straße."


def _text_demo(text: str, row: int = 0) -> State:
    s, ref = open_ref("text-demo", text)
    return State(s, row=row, head=ref)


def test_a_split_character_reads_as_typed_and_is_named_by_its_bytes():
    """Review: "l��uft" in the text, "who does t14 ␣ look at" and a legend that explained neither sign.
    The text reads as typed (ä on the token that completes it, ◌ on the one before), the lists name
    each token by its bytes (<C3>, <A4>), and the legend says what ◌ and ␣ stand for."""
    a4 = _text_demo(GERMAN).scenario.tokens.index("<A4>")  # ä is C3 A4 in UTF-8, two tokens here
    st = _text_demo(GERMAN, a4)
    view = tv.token_view(st, tv.weights_of(st, tv.OUT, a4))
    assert view.joined and "\ufffd" not in "".join(view.texts)
    assert "".join(view.texts).replace("◌", "").replace("␣", " ") == GERMAN
    assert view.texts[a4 - 1] == "◌" and view.texts[a4].startswith("ä")
    assert f"who does t{a4 + 1} <A4> look at" in view.title and "<C3> " in view.top  # t6 <C3>: its bytes
    words = tv.legend(False, st, joined=view.joined, texts=view.texts)
    assert "◌ a byte of a character a later token completes" in words and "␣ a token that is a space" in words


def test_a_text_past_the_models_training_says_so_in_the_legend():
    from attn_tui.core.models import MODELS

    most = MODELS["text-demo"].trained_up_to()
    assert most == 256  # the shipped file's metadata (n_ctx_train), as TEXT_MODEL.md says
    long = _text_demo(" ".join(["the"] * (most + 4)))
    short = _text_demo(" ".join(["the"] * (most - 10)))
    assert long.scenario.T > most >= short.scenario.T
    assert f"never trained on a text longer than {most} tokens" in tv.legend(False, long, joined=True)
    assert "never trained" not in tv.legend(False, short, joined=True)
