"""report.summary line by line, written to kill the mutants of report/summary.py
(scripts/mutation.sh): the sampled rows, every figure of summarise() against NumPy over the full
matrices (rows that see nothing, NaN rows, a masked cell that keeps weight, ties, picks on block
boundaries, the progress per block), and the text and JSON written from figures made here, so
every word and number of the summary is checked against what the test put in."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from attn_tui.core.scenario import Scenario
from attn_tui.report import full, summary
from tests.core.reference_attention import blocked as ref_blocked

RNG = np.random.default_rng(61)


def reference(s):
    """A, H (bits), keys seen, from the scenario's own inputs: S = scale Q Kᵀ + fill on blocked cells."""
    B = np.array(ref_blocked(s.mask, s.T, s.T_k, s.padding, s.window))
    scale = s.c / np.sqrt(s.d_k) if s.scaled else s.c
    X = scale * (s.Q @ s.K.T) + np.where(B, -np.inf if s.fill == "-inf" else -1e9, 0.0)
    nan = np.isneginf(X).all(axis=1)
    with np.errstate(invalid="ignore"):
        A = np.exp(X - X.max(axis=1, keepdims=True))
        A /= A.sum(axis=1, keepdims=True)
        H = -np.where(A > 0, A * np.log2(np.where(A > 0, A, 1.0)), 0.0).sum(axis=1)
    A[nan], H[nan] = np.nan, np.nan
    return A, H, (~B).sum(axis=1), B


def test_sampled_rows_are_the_first_the_quarters_the_last_and_the_focus():
    s = Scenario(Q=np.ones((103, 1)), K=np.ones((103, 1)), focus_row=7)
    assert summary.sample_rows(s) == [0, 6, 25, 51, 77, 102]  # 103 // 4, 103 // 2, 309 // 4, 102
    assert summary.sample_rows(Scenario(Q=np.ones((8, 1)), K=np.ones((8, 1)))) == [0, 2, 4, 6, 7]


def scenario_a():
    """Window 5, keys 1 and 17 padded (-1e9), so row 1 sees nothing; rows 26 and 38 score 1e9 + 2 and
    1e9 (each on an axis of its own) on a key after them: that masked key keeps weight, e² or e⁰
    against the five open keys' e⁰."""
    T = 40
    Q, K = np.zeros((T, 3)), np.zeros((T, 3))
    Q[:, 1], K[:, 1] = RNG.standard_normal(T), RNG.standard_normal(T)
    Q[25, 1] = Q[37, 1] = 0.0
    Q[25, 0], K[30, 0], Q[37, 2], K[39, 2] = 1e5, 1e4 + 2e-5, 1e5, 1e4
    return Scenario(Q=Q, K=K, V=RNG.standard_normal((T, 2)), mask="window", window=5, padding=(1, 17),
                    scaled=False, focus_row=14)  # fmt: skip


def test_summarise_is_the_full_matrices_figures():
    s = scenario_a()
    A, H, seen, B = reference(s)
    f = summary.summarise(s, block=10)
    e = f["entropy"]
    assert (e["rows"], e["nan_rows"], e["min_row"], e["max_row"]) == (40, 0, int(H.argmin()) + 1, int(H.argmax()) + 1)
    for key, want in (("mean", H.mean()), ("median", np.median(H)), ("min", H.min()), ("max", H.max())):
        assert e[key] == pytest.approx(want, abs=1e-9)
    assert e["mean_effective_tokens"] == pytest.approx(np.exp2(H).mean(), rel=1e-9)
    masked = np.where(B, A, 0.0).max(axis=1)
    assert masked[25] > masked[37] > 0.1  # the largest is in an earlier block than a smaller one
    assert f["largest_masked_weight"] == {"A": pytest.approx(masked[25], rel=1e-9), "row": 26}
    assert f["max_abs_row_sum_minus_1"] < 1e-12
    frac = H[seen > 1] / np.log2(seen[seen > 1])  # row 1 (sees nothing) and rows that see one key left out
    counts = np.histogram(np.minimum(frac, 1.0), 16, (0, 1))[0].tolist()
    assert f["entropy_over_ceiling_histogram"] == {"bins": 16, "counts": counts}
    assert sum(counts) == np.count_nonzero(seen > 1)
    assert list(f["top_keys"]) == [1, 11, 14, 21, 31, 40]
    for t, keys in f["top_keys"].items():
        order = [int(i) for i in np.argsort(-A[t - 1], kind="stable")[:3] if A[t - 1, i] > 0]
        assert [k for k, _ in keys] == order
        np.testing.assert_allclose([w for _, w in keys], A[t - 1, order], rtol=1e-9)
    S = s.Q @ s.K.T
    assert f["rank"] == {"S": np.linalg.matrix_rank(S), "Q": 3, "K": 3, "d_k": 3}
    sv = np.linalg.svd(S, compute_uv=False)[:3]  # d_k of them; the third (39) is 1e9 eps from the first two's
    np.testing.assert_allclose(f["singular_values_S"], sv, rtol=1e-9, atol=1e-14 * sv[0])


def test_rows_that_see_nothing_warn_nothing_and_are_nan_rows():
    """-inf fill, keys 1 and 2 padded: rows 1 and 2 see no key (NaN rows), a whole block of them."""
    s = Scenario(Q=RNG.standard_normal((7, 2)), K=RNG.standard_normal((7, 2)), padding=(1, 2), fill="-inf")
    A, H, seen, B = reference(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = summary.summarise(s, block=2)
    assert f["entropy"]["nan_rows"] == 2 and f["entropy"]["min_row"] == 3  # row 3 sees key 3 alone: H = 0
    assert f["largest_masked_weight"] == {"A": 0.0, "row": None}
    assert list(f["top_keys"]) == [1, 2, 4, 6, 7] and f["top_keys"][1] == f["top_keys"][2] == []
    for t in (4, 6, 7):  # rows 4, 6, 7 see keys 3..t: their 2, 3, 3 largest weights
        order = [int(i) for i in np.argsort(-A[t - 1], kind="stable")[:3] if A[t - 1, i] > 0]
        assert [k for k, _ in f["top_keys"][t]] == order and len(order) == min(3, t - 2)


def test_equal_masked_weights_name_the_first_row():
    s = Scenario(Q=np.zeros((20, 2)), K=np.ones((5, 2)), mask="none", padding=(1, 2, 3, 4, 5))  # every row uniform
    f = summary.summarise(s, block=4)
    assert f["largest_masked_weight"] == {"A": pytest.approx(0.2), "row": 1}


def test_key_1_is_listed_among_the_top_keys():
    s = Scenario(Q=RNG.standard_normal((4, 2)), K=RNG.standard_normal((4, 2)))  # causal: row 1 sees key 1 alone
    assert summary.summarise(s)["top_keys"][1] == [(0, 1.0)]


def test_progress_is_reported_after_each_block_of_the_given_size():
    seen = []
    summary.summarise(
        Scenario(Q=np.ones((25, 1)), K=np.ones((25, 1))), block=10, progress=lambda d, n: seen.append((d, n))
    )
    assert seen == [(10, 25), (20, 25), (25, 25)]
    out = io.StringIO()
    summary.progress_to(out)(3, 9)
    assert out.getvalue() == "\rsummarising: rows 3 of 9"


def test_large_and_full_limits_are_inclusive_at_the_bound():
    def sq(n):
        return Scenario(Q=np.ones((n, 1)), K=np.ones((n, 1)))

    assert not full.is_large(sq(64)) and full.is_large(sq(65))  # the text
    assert not full.is_large(sq(512), as_json=True) and full.is_large(sq(513), as_json=True)
    full.check_full(sq(2048))  # at the limit: --full prints it
    with pytest.raises(ValueError, match="^--full: 2049 tokens"):
        full.check_full(sq(2049))


def test_float16_ranks_use_float16s_tolerance():
    Q = np.array([[1.0, 0.0], [0.0, 2.0**-5]])  # σ(S) = (1, 2⁻¹⁰) / √2: the second below float16's tolerance
    for dtype, rank in (("float16", 1), ("float64", 2)):
        assert summary.summarise(Scenario(Q=Q, K=Q, mask="none", dtype=dtype))["rank"]["S"] == rank


FIGURES = {  # made here: the text and the JSON must say exactly these
    "entropy": {"rows": 9, "nan_rows": 1, "mean": 1.23456, "median": 1.5, "min": 0.25, "min_row": 3, "max": 2.0,
                "max_row": 5, "mean_effective_tokens": 2.345},
    "entropy_over_ceiling_histogram": {"bins": 16, "counts": [0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2]},
    "top_keys": {1: [(0, 0.5), (8, 0.25)], 3: []},
    "largest_masked_weight": {"A": 0.25, "row": 7},
    "max_abs_row_sum_minus_1": 2.5e-16,
    "rank": {"S": 4, "Q": 5, "K": 6, "d_k": 7},
    "singular_values_S": [3.5, 1.25],
}  # fmt: skip


def projected():
    tokens = tuple("abcdefghi")
    W = {k: RNG.standard_normal((3, w)) for k, w in (("W_Q", 4), ("W_K", 4), ("W_V", 2))}
    return Scenario(title="big one", tokens=tokens, X=RNG.standard_normal((9, 3)), **W, mask="window", window=3,
                    padding=(2,), c=2.0)  # fmt: skip


def test_text_says_the_figures_line_by_line():
    assert summary.summary_text(projected(), "big.npz", FIGURES).split("\n") == [
        "big one",
        "scenario: big.npz",
        "T = 9   T' = 9   d_model = 3   d_k = 4   d_v = 2",
        "settings: mask = window (window 3)   padding = [2]   fill = -1e9   c = 2   scaled = true   (scale = 1)"
        "   dtype = float64",
        "tokens: a, b, c, d, e, f, g, h, ... (1 more, 9 in all)",
        "keys:   a, b, c, d, e, f, g, h, ... (1 more, 9 in all)",
        "",
        "Summary: 9 tokens, above 64, so no matrix is printed (--full prints them; --json gives every number, "
        "for programs).",
        "Each figure below is computed in blocks of 128 rows, 2048 keys at a time (each row's max,",
        "then e^(x - max)): no T x T' matrix is stored.",
        "",
        "H(A_t) bits: mean 1.235   median 1.500   min 0.250 (row 3)   max 2.000 (row 5)   mean 2^H 2.35",
        "NaN rows: 1 of 9",
        "H / log2(keys seen) of the 8 non-NaN rows that see 2 keys or more, rows per 1/16 from 0 to 1: "
        "0 1 2 0 0 0 0 0 0 0 0 0 0 0 3 2",
        "",
        "top keys of some rows (A):",
        "  t1 a: t1 a 0.500, t9 i 0.250",  # positions as the lesson writes them ("t4 it")
        "  t3 c: NaN row (no key it may see)",
        "",
        "largest weight on a masked cell: 0.25 (row 7)   max |row sum of A - 1|: 2.5e-16",
        "rank(S) = 4   rank(Q) = 5   rank(K) = 6   d_k = 7   (from QR factors of Q and K: S = Q1 (R1 R2^T) Q2^T)",
        "largest singular values of S: 3.5  1.25",
        "params d_model * (2 d_k + d_v) = 30",  # 3 (2·4 + 2)
        "",
    ]


def test_text_of_given_q_k_v_without_a_name_window_or_entropies():
    s = Scenario(Q=np.ones((8, 2)), K=np.ones((8, 2)), tokens=tuple("abcdefgh"), scaled=False)
    f = FIGURES | {"entropy": {"rows": 8, "nan_rows": 8}, "largest_masked_weight": {"A": 0.0, "row": None},
                   "top_keys": {2: [(1, 1.0)]}}  # fmt: skip
    lines = summary.summary_text(s, figures=f).split("\n")
    assert lines[:4] == [
        "untitled",
        "T = 8   T' = 8   d_model = -   d_k = 2   d_v = 8",
        "settings: mask = causal   padding = []   fill = -1e9   c = 1   scaled = false   (scale = 1)   dtype = float64",
        "tokens: a, b, c, d, e, f, g, h",
    ]
    assert lines[9:11] == ["", "NaN rows: 8 of 8"] and "  t2 b: t2 b 1.000" in lines
    assert "largest weight on a masked cell: 0   max |row sum of A - 1|: 2.5e-16" in lines
    assert lines[-2:] == ["params: n/a (Q, K, V given directly)", ""]


def test_text_and_json_compute_the_figures_when_none_are_given():
    s = Scenario(Q=RNG.standard_normal((6, 2)), K=RNG.standard_normal((6, 2)))
    assert summary.summary_text(s) == summary.summary_text(s, figures=summary.summarise(s))
    assert summary.summary_dict(s) == summary.summary_dict(s, figures=summary.summarise(s))


def test_json_holds_the_figures_and_the_scenario():
    s = projected()
    d = summary.summary_dict(s, "big.npz", FIGURES)
    assert d == {
        "name": "big.npz",
        "title": "big one",
        "summary": True,
        "why": "T or T' above 512: a summary computed in row blocks (no T x T' matrix); --full prints them",
        "tokens_first": list("abcdefgh"),
        "key_tokens_first": list("abcdefgh"),
        "shape": {"T": 9, "T_k": 9, "d_model": 3, "d_k": 4, "d_v": 2},
        "settings": {"c": 2.0, "scaled": True, "scale": 1.0, "mask": "window", "window": 3, "fill": "-1e9",
                     "dtype": "float64", "padding": [2]},
        "params_qkv": 30,
        **{k: v for k, v in FIGURES.items() if k != "top_keys"},
        "top_keys": [
            {"row": 1, "token": "a", "keys": [{"key": 1, "token": "a", "A": 0.5}, {"key": 9, "token": "i", "A": 0.25}]},
            {"row": 3, "token": "c", "keys": []},
        ],
    }  # fmt: skip
    assert summary.summary_dict(s, figures=FIGURES)["name"] == ""
    assert list(d)[-1] == "top_keys"  # the JSON ends with the rows' top keys


def test_uniform_rows_all_land_in_the_last_bin():
    # Q = 0: every causal row is uniform over the keys it sees, H = log2 t up to an ulp either side
    T = 300
    s = Scenario(Q=np.zeros((T, 2)), K=RNG.standard_normal((T, 2)), V=RNG.standard_normal((T, 2)), mask="causal")
    counts = summary.summarise(s, block=64)["entropy_over_ceiling_histogram"]["counts"]
    assert counts[-1] == T - 1 and sum(counts) == T - 1  # row 1 sees one key: no ceiling to divide by
    assert f"of the {T - 1} non-NaN rows that see 2 keys or more" in summary.summary_text(s)


def test_the_summary_points_to_full_only_where_full_prints(monkeypatch):
    monkeypatch.setattr(full, "FULL_MAX", 8)  # 9 tokens: beyond what --full prints
    text = summary.summary_text(projected(), "big.npz", FIGURES)
    assert "so no matrix is printed (--full prints them up to 8 tokens, not 9; --json gives these figures" in text
    assert summary.summary_dict(projected(), "big.npz", FIGURES)["why"].endswith("up to 8 tokens, not 9")
    with pytest.raises(ValueError, match="every matrix is printed up to 8 tokens"):
        full.check_full(projected())


def test_at_exactly_full_max_tokens_the_hint_and_check_full_agree_that_full_prints(monkeypatch):
    monkeypatch.setattr(full, "FULL_MAX", 9)  # 9 tokens: the most --full prints
    full.check_full(projected())  # accepted
    text = summary.summary_text(projected(), "big.npz", FIGURES)
    assert "so no matrix is printed (--full prints them; --json gives every number, for programs)." in text


def test_default_labels_are_written_once_and_unequal_sizes_are_named():
    Q, K = RNG.standard_normal((6, 2)), RNG.standard_normal((9, 2))
    s = Scenario(Q=Q, K=K, mask="none")
    text = summary.summary_text(s)
    assert "Summary: 6 queries x 9 keys, above 64" in text
    tops = [line for line in text.splitlines() if line.startswith("  t")]
    assert tops and all(line.split(":")[0].strip().count("t") == 1 for line in tops), tops  # "t1", not "t1 t1"
    assert all("(k" not in line for line in tops), tops  # "t4 0.31", not "t4 (k4) 0.31"
    lm = summary.summarise(s)["largest_masked_weight"]["A"]
    assert f"largest weight on a masked cell: {lm:.3g}" in text
