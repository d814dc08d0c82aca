"""The lesson's scenarios, built the way the lesson builds them, plus teaching variants.

Each is a function returning a Scenario, so the construction reads like the
lesson's code (W_Q(2, :) = [2, 2, 0, 0] becomes W_Q[1] = [2, 2, 0, 0]).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from .scenario import Scenario

T, D_K = 5, 4


def lesson_handcrafted() -> Scenario:
    """Hand-crafted Q and K; V is the identity, so O = A."""
    K = np.array([[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]], dtype=np.float64)
    Q = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]], dtype=np.float64)
    return Scenario(
        title="Lesson 08: hand-crafted Q and K (key 1 advertises feature 1; queries 2 and 4 look for it)",
        tokens=("t1", "t2", "t3", "t4", "t5"),
        Q=Q,
        K=K,
        focus_row=4,  # the lesson reads row 4: 0.43 on t1, a token three positions back
    )


def lesson_pipeline() -> Scenario:
    """ "mat was soft, it was": one-hot features projected to Q, K, V."""
    d_model, d_v = 6, 4
    X = np.zeros((T, d_model))
    for t, f in enumerate([0, 1, 2, 3, 1]):  # mat was soft it was
        X[t, f] = 1
    W_Q = np.zeros((d_model, D_K))
    W_Q[1] = [2, 2, 0, 0]  # a verb looks for its subject: a noun or a pronoun
    W_Q[2] = [2, 0, 0, 0]  # an adjective looks for the noun it describes
    W_Q[3] = [2, 0, 0, 0]  # a pronoun looks for the noun it stands for
    W_K = np.zeros((d_model, D_K))
    W_K[0] = [3, 0, 0, 0]  # a noun advertises "noun"
    W_K[3] = [0, 3, 0, 0]  # a pronoun advertises "pronoun"
    W_K[1] = [0, 0, 3, 0]  # verbs and adjectives advertise on dims no query asks for
    W_K[2] = [0, 0, 0, 3]
    W_V = np.vstack([np.eye(4), np.zeros((2, d_v))])  # hands over its first four features
    return Scenario(
        title='Lesson 08: the full pipeline, "mat was soft, it was" (a pronoun asks for a noun)',
        tokens=("t1 mat", "t2 was", "t3 soft", "t4 it", "t5 was"),
        features=("noun", "verb", "adj", "pron", "spare1", "spare2"),
        X=X,
        W_Q=W_Q,
        W_K=W_K,
        W_V=W_V,
        focus_row=4,  # the lesson reads row 4: "it" retrieves "mat", A(4,1) = 0.870
    )


def box_kernel() -> Scenario:
    """W_Q = W_K = 0: every score is 0, so A is Lesson 07's prefix average."""
    s = lesson_pipeline()
    z = np.zeros_like(s.W_Q)
    return s.with_(title="Box kernel: W_Q = W_K = 0 gives Lesson 07's prefix average W_avg", W_Q=z, W_K=z)


def exercise1_doubled() -> Scenario:
    """Exercise 1: double the diagonal of Q and K; scores grow, rows sharpen."""
    s = lesson_handcrafted()
    assert s.Q is not None and s.K is not None  # a Q/K scenario (lesson_handcrafted)
    Q, K = s.Q.copy(), s.K.copy()
    for a in (Q, K):
        n = min(a.shape)
        a[range(n), range(n)] *= 2
    return s.with_(title="Exercise 1: doubled diagonal of Q and K -- larger scores, lower entropy", Q=Q, K=K)


def padding_nan() -> Scenario:
    """Fill -inf with a fully masked row: row 1 sees only key 1, which is padded -> NaN."""
    s = lesson_pipeline()
    return s.with_(
        title="Fully-masked row: padding key 1 with fill -inf makes row 1 NaN (-inf - -inf)",
        padding=(1,),
        fill="-inf",
        focus_row=1,
    )  # opens on the NaN row


def float16_overflow() -> Scenario:
    """In float16 the -1e9 fill overflows to -inf."""
    s = lesson_pipeline()
    return s.with_(title="float16: the -1e9 fill overflows to -inf (max finite fp16 is 65504)", dtype="float16")


def cross_attention() -> Scenario:
    """Exercise 3: queries from X, keys and values from another sequence Y."""
    s = lesson_pipeline()
    Y = np.zeros((3, 6))
    for t, f in enumerate([3, 0, 2]):  # it mat soft
        Y[t, f] = 1
    return s.with_(
        title="Exercise 3: cross-attention, keys and values from a second sequence Y",
        Y=Y,
        key_tokens=("y1 it", "y2 mat", "y3 soft"),
        mask="none",
    )


BUILTINS = {
    "lesson-pipeline": lesson_pipeline,
    "lesson-handcrafted": lesson_handcrafted,
    "box-kernel": box_kernel,
    "exercise1-doubled": exercise1_doubled,
    "padding-nan": padding_nan,
    "float16-overflow": float16_overflow,
    "cross-attention": cross_attention,
}
DEFAULT = "lesson-pipeline"
_READ: ContextVar[list[str] | None] = ContextVar("builtins_read", default=None)


@contextmanager
def reading() -> Iterator[list[str]]:
    """The names :func:`builtin` is asked for inside the block, in order: what a text computed from
    the built-ins speaks of (the tour's pages, tui/tour_text.py)."""
    names: list[str] = []
    token = _READ.set(names)
    try:
        yield names
    finally:
        _READ.reset(token)


def builtin(name: str) -> Scenario:
    """A fresh built-in Scenario by name (see BUILTINS); ValueError naming the built-ins otherwise."""
    read = _READ.get()
    if read is not None:
        read.append(name)
    try:
        return BUILTINS[name]()
    except KeyError:
        raise ValueError(f"scenario: no built-in named {name!r}; built-ins: {', '.join(BUILTINS)}") from None
