"""Every number the lesson prints for its deterministic examples, reproduced from its inputs.

The inputs are typed in here the way the lesson writes them (its code blocks); the
expected values are the lesson's printouts, compared at their printed precision.
"""

import numpy as np
import pytest

from attn_tui.core import attention, builtin, causal_mask, lenses, row_entropies_bits

T, D_K = 5, 4
K_HAND = [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
Q_HAND = [[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0]]

# the lesson's printed matrices (6 decimals)
A_PRINTED = [
    [1.000000, 0.000000, 0.000000, 0.000000, 0.000000],
    [0.731059, 0.268941, 0.000000, 0.000000, 0.000000],
    [0.211942, 0.576117, 0.211942, 0.000000, 0.000000],
    [0.426933, 0.157060, 0.157060, 0.258948, 0.000000],
    [0.237357, 0.237357, 0.143964, 0.237357, 0.143964],
]
A2_PRINTED = [
    [1.000000, 0.000000, 0.000000, 0.000000, 0.000000],
    [0.952574, 0.047426, 0.000000, 0.000000, 0.000000],
    [0.909443, 0.045279, 0.045279, 0.000000, 0.000000],
    [0.870049, 0.043317, 0.043317, 0.043317, 0.000000],
    [0.465255, 0.023164, 0.023164, 0.465255, 0.023164],
]
O_PRINTED = [
    [1.000000, 0.000000, 0.000000, 0.000000],
    [0.952574, 0.047426, 0.000000, 0.000000],
    [0.909443, 0.045279, 0.045279, 0.000000],
    [0.870049, 0.043317, 0.043317, 0.043317],
    [0.465255, 0.046327, 0.023164, 0.465255],
]
# the entropy table: t, log2 t, H(A_t), 2^H (hand-crafted), H(A2_t), 2^H (pipeline)
TABLE_PRINTED = [
    (1, 0.00, 0.00, 1.00, 0.00, 1.00),
    (2, 1.00, 0.84, 1.79, 0.28, 1.21),
    (3, 1.58, 1.41, 2.65, 0.53, 1.44),
    (4, 2.00, 1.87, 3.65, 0.76, 1.70),
    (5, 2.32, 2.28, 4.87, 1.40, 2.65),
]


def pipeline_inputs():
    """X, W_Q, W_K, W_V exactly as the lesson's code builds them (1-based rows there)."""
    X = np.array(
        [[1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0, 0]],
        dtype=float,
    )
    W_Q = np.zeros((6, D_K))
    W_Q[1], W_Q[2], W_Q[3] = [2, 2, 0, 0], [2, 0, 0, 0], [2, 0, 0, 0]
    W_K = np.zeros((6, D_K))
    W_K[0], W_K[3], W_K[1], W_K[2] = [3, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0], [0, 0, 0, 3]
    W_V = np.vstack([np.eye(4), np.zeros((2, 4))])
    return X, W_Q, W_K, W_V


def hand_trace():
    return attention(Q_HAND, K_HAND, np.eye(T), mask=causal_mask(T))


def pipe_trace():
    X, W_Q, W_K, W_V = pipeline_inputs()
    return attention(X @ W_Q, X @ W_K, X @ W_V, mask=causal_mask(T))


def rounds_to(got, printed, decimals):
    """``got`` printed with ``decimals`` decimals is exactly the lesson's printout."""
    fmt = f"{{:.{decimals}f}}"
    got_s = [fmt.format(x) for x in np.ravel(got)]
    want_s = [fmt.format(x) for x in np.ravel(printed)]
    assert got_s == want_s


@pytest.mark.parametrize("make", [hand_trace, lambda: builtin("lesson-handcrafted").run()])
def test_handcrafted_A(make):
    tr = make()
    rounds_to(tr.A, A_PRINTED, 6)
    assert tr.A[0, 0] == 1.0  # "A(1,1) = 1"
    rounds_to(tr.A.sum(axis=1), [1.0] * T, 6)  # row sums
    assert np.max(tr.A[np.triu_indices(T, 1)]) == 0.0  # "largest upper-triangle entry = 0"
    assert tr.O is not None and np.array_equal(tr.O, tr.A)  # V = I, so O = A


@pytest.mark.parametrize("make", [pipe_trace, lambda: builtin("lesson-pipeline").run()])
def test_pipeline_A2_O(make):
    tr = make()
    rounds_to(tr.A, A2_PRINTED, 6)
    rounds_to(tr.O, O_PRINTED, 6)
    assert np.max(np.abs(tr.O[0] - tr.V[0])) == 0.0  # "max |O(1, :) - V(1, :)| = 0"


def test_query4_meets_key1_with_score_3():
    tr = pipe_trace()
    assert tr.S[3, 0] == 3.0  # 2 * 3 / sqrt(4)
    assert tr.A[3, 0] == pytest.approx(np.e**3 / (np.e**3 + 3), abs=1e-15)


def test_param_count_72():
    X, W_Q, W_K, W_V = pipeline_inputs()
    assert lenses.param_count(X.shape[1], W_Q.shape[1], W_V.shape[1]) == 72 == 3 * 6 * 4
    s = builtin("lesson-pipeline")
    assert lenses.param_count(s.d_model, s.d_k, s.d_v) == 72


def test_nadaraya_watson_row4():
    tr = pipe_trace()
    nw, kappa = lenses.nadaraya_watson_row(tr.Q, tr.K, tr.V, 3, tr.scale, tr.blocked)
    assert kappa[4] == 0.0  # key 5 is in row 4's future
    diff = lenses.max_abs_diff(nw, tr.O[3])
    assert diff < 1e-12  # the lesson prints 3.3e-16


def test_box_kernel_exactly_prefix_average():
    X, W_Q, W_K, W_V = pipeline_inputs()
    Z = np.zeros_like(W_Q)
    tr = attention(X @ Z, X @ Z, X @ W_V, mask=causal_mask(T))
    W_avg = lenses.prefix_average(T)
    assert np.max(np.abs(tr.A - W_avg)) == 0.0  # exactly, as the lesson prints
    A_box, W2 = lenses.box_kernel(T)
    assert np.array_equal(A_box, W2)
    assert np.max(np.abs(builtin("box-kernel").run().A - W_avg)) == 0.0


def test_entropy_table():
    H_A = row_entropies_bits(hand_trace().A)
    H_A2 = row_entropies_bits(pipe_trace().A)
    for t, lg, h, e, h2, e2 in TABLE_PRINTED:
        got = (np.log2(t), H_A[t - 1], 2 ** H_A[t - 1], H_A2[t - 1], 2 ** H_A2[t - 1])
        rounds_to(got, (lg, h, e, h2, e2), 2)


def test_trace_entropy_fields_match_table():
    tr = builtin("lesson-handcrafted").run()
    np.testing.assert_array_equal(tr.H, row_entropies_bits(tr.A))
    np.testing.assert_allclose(tr.eff, 2**tr.H)


def test_ranks_2_2_4():
    a, b = hand_trace(), pipe_trace()
    assert (a.rank_S, a.rank_Q, a.rank_K, a.d_k) == (2, 2, 4, 4)
    assert (b.rank_S, b.rank_Q, b.rank_K) == (2, 2, 4)
    info = lenses.rank_info(a.S, a.Q, a.K)
    assert (info["S"], info["Q"], info["K"], info["d_k"]) == (2, 2, 4, 4)
    assert np.sum(info["singular_values"] > 1e-12) == 2


def test_scale_is_one_over_sqrt_dk():
    tr = hand_trace()
    np.testing.assert_array_equal(tr.S, np.array(Q_HAND) @ np.array(K_HAND, float).T * 0.5)
    assert tr.scale == 0.5
    assert np.array_equal(tr.scores, tr.S) and tr.weights is tr.A and tr.output is tr.O


def test_core_docstring_examples_run():
    """The core's doctests (softmax rows sum to 1, causal_mask, entropy_bits, param_count)."""
    import doctest
    import importlib

    failed = attempted = 0
    for mod in ("attention", "info", "lenses", "experiments", "scenario", "scenario_io", "builtins"):
        r = doctest.testmod(importlib.import_module(f"attn_tui.core.{mod}"))
        failed, attempted = failed + r.failed, attempted + r.attempted
    assert failed == 0 and attempted >= 4
