"""O's and V's columns are named after input features only when W_V copies them (the lesson's
W_V = [I; 0]); a learned or random W_V's columns are v1..v_dv (a cross-attention file with
features f1..f24 and a 24 x 24 random W_V headed V's columns f1, f2, ...)."""

from __future__ import annotations

import numpy as np

from attn_tui.core.builtins import builtin


def test_the_lesson_s_w_v_copies_its_features():
    s = builtin("lesson-pipeline")
    assert np.array_equal(s.W_V, np.eye(*s.W_V.shape))
    assert s.value_features == tuple(s.features[: s.d_v])


def test_any_other_w_v_names_its_columns_v1_to_v_dv():
    s = builtin("lesson-pipeline")
    W = s.W_V.copy()
    W[0, 1] = 0.5  # one entry off the identity: V's column 2 now mixes noun and verb
    t = s.with_(W_V=W)
    assert t.value_features == tuple(f"v{j + 1}" for j in range(s.d_v))
