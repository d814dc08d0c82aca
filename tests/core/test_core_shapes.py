"""Beyond the lesson's sizes: random shapes with d_k ≠ d_v, T ≠ T' (cross-attention),
d_model ≠ d_k, every dtype, mask and fill, checked against an independent reference
(tests/core/reference_attention.py: loops and the math module, no attn_tui.core code).

The lesson's own matrices hide formula errors (d_k = d_v = 4, T = T'): a parameter count
d_model(d_k + 2 d_v), W_O counted with d_k, rank(Q) printed for rank(S), the visible keys
summed over the wrong axis all pass there. Here each is a failing test.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from attn_tui.core import lenses
from attn_tui.core.diagnose import ceiling_bits
from attn_tui.core.scenario import Scenario
from attn_tui.report import as_json, text
from tests.core.reference_attention import reference

DTYPES = ("float64", "float32", "float16")
# how far the trace in a dtype may sit from the float64 reference (inputs are N(0, 1)-sized)
ATOL = {"float64": 1e-9, "float32": 2e-4, "float16": 4e-2}


def make(
    T,
    T_k,
    d_model,
    d_k,
    d_v,
    seed=0,
    cross=None,
    dtype="float64",
    mask="causal",
    window=None,
    padding=(),
    fill="-1e9",
    c=1.0,
    scaled=True,
):
    """A projected scenario with N(0, 1) inputs (Y only when cross, or when T' ≠ T)."""
    rng = np.random.default_rng(seed)
    cross = (T_k != T) if cross is None else cross
    X = rng.standard_normal((T, d_model))
    Y = rng.standard_normal((T_k, d_model)) if cross else None
    W = [rng.standard_normal((d_model, n)) / math.sqrt(d_model) for n in (d_k, d_k, d_v)]
    return Scenario(
        title="random",
        X=X,
        Y=Y,
        W_Q=W[0],
        W_K=W[1],
        W_V=W[2],
        mask=mask,
        window=window,
        padding=tuple(padding),
        fill=fill,
        c=c,
        scaled=scaled,
        dtype=dtype,
    )


@st.composite
def scenarios(draw):
    T = draw(st.integers(1, 7))
    cross = draw(st.booleans())
    T_k = draw(st.integers(1, 7)) if cross else T
    d_model, d_k, d_v = (draw(st.integers(1, 6)) for _ in range(3))
    mask = draw(st.sampled_from(["causal", "none", "window"]))
    window = draw(st.integers(1, 4)) if mask == "window" else None
    padding = draw(st.lists(st.integers(1, T_k), unique=True, max_size=T_k))
    return make(
        T,
        T_k,
        d_model,
        d_k,
        d_v,
        seed=draw(st.integers(0, 2**16)),
        cross=cross,
        dtype=draw(st.sampled_from(DTYPES)),
        mask=mask,
        window=window,
        padding=sorted(padding),
        fill=draw(st.sampled_from(["-1e9", "-inf", "min"])),
        c=draw(st.sampled_from([0.5, 1.0, 2.0])),
        scaled=draw(st.booleans()),
    )


# shapes where the lesson's coincidences break, kept as explicit examples
EXAMPLES = [
    make(3, 5, 6, 2, 4, seed=1, cross=True, mask="none"),  # T < T', d_model > d_k, d_k < d_v
    make(6, 2, 3, 5, 1, seed=2, cross=True, mask="causal", padding=(2,)),  # T > T', d_k > d_model
    make(5, 5, 4, 6, 2, seed=3, mask="window", window=2, dtype="float32", fill="-inf", scaled=False),
    make(4, 4, 2, 3, 5, seed=4, dtype="float16", padding=(1,), fill="-inf", c=2.0),  # row 1 sees nothing
]


def rows_seeing_keys(ref):
    return [t for t in range(ref["T"]) if ref["visible"][t]]


def with_examples(f):
    for s in EXAMPLES:
        f = example(s)(f)
    return f


@settings(max_examples=60, deadline=None)
@given(scenarios())
@with_examples
def test_shapes_projections_and_the_reference(s):
    ref = reference(s)
    tr = s.run()
    assert (s.T, s.T_k, s.d_model, s.d_k, s.d_v) == (ref["T"], ref["T_k"], ref["d_model"], ref["d_k"], ref["d_v"])
    assert tr.Q.shape == (s.T, s.d_k) and tr.K.shape == (s.T_k, s.d_k) and tr.V.shape == (s.T_k, s.d_v)
    assert tr.S.shape == tr.A.shape == tr.M.shape == (s.T, s.T_k) and tr.O.shape == (s.T, s.d_v)
    assert tr.A.dtype == np.dtype(s.dtype) and tr.O.dtype == np.dtype(s.dtype)
    assert float(s.scale) == pytest.approx(ref["scale"], rel=1e-15)
    tol = ATOL[s.dtype]
    for name in ("Q", "K", "V"):  # the projections X W_Q, Y W_K, Y W_V
        np.testing.assert_allclose(getattr(tr, name).astype(np.float64), ref[name], rtol=tol, atol=tol)
    np.testing.assert_allclose(tr.S.astype(np.float64), ref["S"], rtol=tol, atol=10 * tol)
    np.testing.assert_array_equal(tr.blocked, ref["blocked"])
    for t in rows_seeing_keys(ref):
        np.testing.assert_allclose(tr.A[t].astype(np.float64), ref["A"][t], atol=tol)
        np.testing.assert_allclose(tr.O[t].astype(np.float64), ref["O"][t], atol=3 * tol)
        assert tr.H[t] == pytest.approx(ref["H"][t], abs=3 * tol)
        assert np.all(tr.A[t][tr.blocked[t]] == 0.0)  # masked exactly, not approximately
        assert float(tr.A[t].astype(np.float64).sum()) == pytest.approx(
            1.0, abs=tol + 8 * s.T_k * np.finfo(s.dtype).eps
        )
    np.testing.assert_allclose(tr.eff, 2.0**tr.H)


@settings(max_examples=60, deadline=None)
@given(scenarios())
@with_examples
def test_visible_keys_ceiling_and_nan_rows(s):
    ref = reference(s)
    tr = s.run()
    assert text.visible_keys(tr.blocked).tolist() == ref["visible"]
    ceiling = ceiling_bits(tr.blocked)
    for t, want in enumerate(ref["ceiling"]):
        assert math.isnan(ceiling[t]) if want is None else ceiling[t] == pytest.approx(want, abs=1e-15)
    for t in range(s.T):  # a row that sees no key: NaN with an infinite fill, else a distribution
        if ref["visible"][t] == 0 and np.isneginf(tr.M[t]).all():
            assert t in tr.nan_rows
        elif ref["visible"][t]:
            assert t not in tr.nan_rows


@settings(max_examples=60, deadline=None)
@given(scenarios())
@with_examples
def test_parameter_counts_with_and_without_w_o(s):
    ref = reference(s)
    sizes = s.W_Q.size + s.W_K.size + s.W_V.size  # the matrices themselves
    assert ref["params"] == sizes
    assert text.params_qkv(s) == sizes
    assert lenses.param_count(s.d_model, s.d_k, s.d_v) == sizes
    w_o = np.empty((s.d_v, s.d_model)).size  # W_O maps d_v back to d_model
    assert lenses.param_count(s.d_model, s.d_k, s.d_v, with_output=True) == sizes + w_o == ref["params_W_O"]
    assert lenses.param_count(s.d_model, s.d_k) == 3 * s.d_model * s.d_k  # d_v defaults to d_k


def clear_of_rounding(a, rank: int, dtype: str) -> bool:
    """The rank-th singular value of ``a`` (float64 SVD) is 100x above a rank tolerance of ``dtype``
    (sigma_1 * max(shape) * eps): whether a has that rank is then not a question of rounding."""
    sv = np.linalg.svd(np.asarray(a, dtype=np.float64), compute_uv=False)
    return rank == 0 or sv[rank - 1] > 100 * sv[0] * max(a.shape) * np.finfo(dtype).eps


@settings(max_examples=60, deadline=None)
@given(scenarios())
@with_examples
def test_ranks_of_generic_inputs(s):
    """N(0, 1) inputs are generic: rank Q = min(T, d_model, d_k), rank K = min(T', d_model, d_k),
    rank S = min(T, T', d_model, d_k), in float64 and float32, whenever those singular values are clear
    of rounding; float16, or a nearly singular draw, may see fewer (hypothesis drew float32 Q and K whose
    S = QK^T has sigma_4 / sigma_1 = 1.1e-7, below float32's eps: rank 3 is the right answer there)."""
    tr = s.run()
    want_q = min(s.T, s.d_model, s.d_k)
    want_k = min(s.T_k, s.d_model, s.d_k)
    want_s = min(s.T, s.T_k, s.d_model, s.d_k)
    assert tr.rank_S <= min(tr.rank_Q, tr.rank_K) <= s.d_k
    clear = all(clear_of_rounding(m, w, s.dtype) for m, w in ((tr.S, want_s), (tr.Q, want_q), (tr.K, want_k)))
    if s.dtype != "float16" and clear:
        assert (tr.rank_S, tr.rank_Q, tr.rank_K) == (want_s, want_q, want_k)
    else:
        assert tr.rank_S <= want_s and tr.rank_Q <= want_q and tr.rank_K <= want_k


def table_rows(report: str):
    """The per-row table of scenario_text: (t, keys, log2 keys or None, H, 2^H)."""
    rows = []
    for line in report.splitlines():
        m = re.fullmatch(r" +(\d+) +(\d+) +(\S+) \| +(\S+) +(\S+)", line)
        if m:
            t, k, lg, h, eff = m.groups()
            rows.append((int(t), int(k), None if lg == "—" else float(lg), float(h), float(eff)))
    return rows


@settings(max_examples=40, deadline=None)
@given(scenarios())
@with_examples
def test_report_numbers_recomputed_from_the_inputs(s):
    ref = reference(s)
    tr = s.run()
    out = text.scenario_text(s)
    assert f"T = {s.T}   T' = {s.T_k}   d_model = {s.d_model}   d_k = {s.d_k}   d_v = {s.d_v}" in out
    assert f"(scale = {text.fmt_num(ref['scale'])})" in out
    rows = table_rows(out)
    assert [r[0] for r in rows] == list(range(1, s.T + 1))
    tol = 0.005 + 3 * ATOL[s.dtype]  # two decimals, and the dtype's rounding
    for (_t, keys, lg, h, eff), n, ceiling, h_ref in zip(rows, ref["visible"], ref["ceiling"], ref["H"]):
        assert keys == n
        assert (lg is None) if ceiling is None else lg == pytest.approx(ceiling, abs=0.005)
        if h_ref is not None:
            assert h == pytest.approx(h_ref, abs=tol)
            assert eff == pytest.approx(2**h_ref, abs=2 * tol * 2**h_ref)
    m = re.search(r"^rank\(S\) = (\d+)   rank\(Q\) = (\d+)   rank\(K\) = (\d+)   d_k = (\d+)$", out, re.MULTILINE)
    assert m, out
    ranks = tuple(int(g) for g in m.groups())
    assert ranks == (tr.rank_S, tr.rank_Q, tr.rank_K, s.d_k)
    if s.dtype != "float16":
        assert ranks[:3] == (
            min(s.T, s.T_k, s.d_model, s.d_k),
            min(s.T, s.d_model, s.d_k),
            min(s.T_k, s.d_model, s.d_k),
        )
    assert f"params d_model * (2 d_k + d_v) = {ref['params']}\n" in out
    nan_line = re.search(r"^NaN rows: (.*)$", out, re.MULTILINE).group(1)
    assert (nan_line == "none") == (tr.nan_rows == ())


@settings(max_examples=40, deadline=None)
@given(scenarios())
@with_examples
def test_json_numbers_recomputed_from_the_inputs(s):
    ref = reference(s)
    d = json.loads(as_json.scenario_json(s, "random"))
    assert d["shape"] == {
        "T": ref["T"],
        "T_k": ref["T_k"],
        "d_model": ref["d_model"],
        "d_k": ref["d_k"],
        "d_v": ref["d_v"],
    }
    assert d["settings"]["scale"] == pytest.approx(ref["scale"], rel=1e-15)
    assert d["params_qkv"] == ref["params"] and d["params_with_W_O"] == ref["params_W_O"]
    assert d["blocked"] == ref["blocked"]
    tol = ATOL[s.dtype]
    for t in rows_seeing_keys(ref):
        np.testing.assert_allclose(d["A"][t], ref["A"][t], atol=tol)
        np.testing.assert_allclose(d["O"][t], ref["O"][t], atol=3 * tol)
        assert d["row_entropy_bits"][t] == pytest.approx(ref["H"][t], abs=3 * tol)
        assert d["effective_tokens"][t] == pytest.approx(2 ** d["row_entropy_bits"][t], rel=1e-12)
    for got, want in zip(d["entropy_ceiling_bits"], ref["ceiling"]):
        assert got is None if want is None else got == pytest.approx(want, abs=1e-15)
    assert d["nan_rows"] == [t + 1 for t in range(s.T) if any(v is None for v in d["A"][t])]
    tr = s.run()
    assert d["rank"] == {"S": tr.rank_S, "Q": tr.rank_Q, "K": tr.rank_K, "d_k": ref["d_k"]}
    if s.dtype == "float64":
        sv = np.linalg.svd(np.array(ref["S"]), compute_uv=False)
        np.testing.assert_allclose(d["singular_values_S"], sv, atol=1e-9)
    assert d["inputs"]["W_V"] == s.W_V.tolist()
    assert ("Y" in d["inputs"]) == s.cross
