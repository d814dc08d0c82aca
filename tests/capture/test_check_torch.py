"""The check that a GPU runs (capture.check_torch, in torch on the model's device) against the
core's NumPy check (core.heads.capture_check.layer_figures, float64: the oracle), both on CPU torch
on the same layer: the same figures within float64 rounding, the same allowances, and both fail on
NaN (issue 52 item 9: nanmax(..., initial=0) passed an all-NaN A as 'max |ΔA| = 0')."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from tests.capture.tiny_models import require_models

require_models()

import torch  # noqa: E402

from attn_tui.capture.check_torch import layer_figures as torch_figures  # noqa: E402
from attn_tui.core.heads.capture_check import combine_figures  # noqa: E402
from attn_tui.core.heads.capture_check import layer_figures as numpy_figures  # noqa: E402
from attn_tui.core.heads.multihead_settings import read_mask_kind  # noqa: E402
from attn_tui.core.heads.source import HeadSource  # noqa: E402

EPS64 = float(np.finfo(np.float64).eps)


def _layer(kind="causal", H=4, H_kv=2, T=40, d=8, dtype=torch.float32, seed=0):
    """A layer as a model's eager attention gives it: Q, K, V, and A = softmax(scale·QKᵀ + mask) in
    the model's dtype (its own rounding), M the additive mask of kind 'additive'."""
    g = torch.Generator().manual_seed(seed)
    Q = torch.randn(H, T, d, generator=g).to(dtype)
    K = torch.randn(H_kv, T, d, generator=g).to(dtype)
    kv = [h // (H // H_kv) for h in range(H)]
    scale = d**-0.5
    S = (Q.float() @ K.float()[kv].transpose(1, 2)) * scale
    t, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    M = None
    if kind == "causal":
        S = S.masked_fill(j > t, float("-inf"))
    elif kind.startswith("window:"):
        W = int(kind[7:])
        S = S.masked_fill((j > t) | (j <= t - W), float("-inf"))
    elif kind == "additive":
        M = np.where(((j + t) % 3 == 0).numpy() & (j != t).numpy(), np.finfo(np.float32).min, 0.0)
        S = S + torch.as_tensor(M, dtype=torch.float32)
    A = torch.softmax(S, dim=-1).to(dtype)
    return Q, K, A, scale, kind, M, kv


def _oracle(Q, K, A, scale, kind, M, kv, dtype):
    arrays = {"Q": Q.float().numpy(), "K": K.float().numpy(), "A": A.float().numpy()}
    if M is not None:
        arrays["M"] = M

    def read(name, _layer, head=None):
        x = arrays[name] if head is None else arrays[name][head]
        return x if name == "A" else np.asarray(x, dtype=np.float64)

    src = HeadSource(
        title="t",
        source="",
        tokens=tuple(f"t{i}" for i in range(Q.shape[1])),
        ids=(),
        key_tokens=(),
        shapes={k: (1, *v.shape) for k, v in arrays.items()},
        kv_head=tuple(kv),
        scales=(scale,),
        masks=(read_mask_kind(kind, 0),),
        dtype="float32",
        read=read,
    )
    return numpy_figures(src, dtype, 0, rows=16)


@pytest.mark.parametrize("kind", ["causal", "none", "window:5", "additive"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("heads", [None, 4, 3])  # CPU's one head a block; a GPU's every head; groups of 3 and 1
def test_torch_and_numpy_find_the_same_figures(kind, dtype, heads):
    layer = _layer(kind, dtype=getattr(torch, dtype))
    Q, K, A, scale, kind, M, kv = layer
    diffs_np, allowed_np = _oracle(*layer, dtype)
    mask = read_mask_kind(kind, 0)
    diffs_t, allowed_t = torch_figures(Q, K, A, scale, mask, dtype, kv, M=M, rows=7, heads=heads)
    assert np.all(diffs_np > 0)  # the model's rounding shows: the figures are not trivially 0
    np.testing.assert_allclose(diffs_t, diffs_np, rtol=0, atol=64 * EPS64)
    np.testing.assert_allclose(allowed_t, allowed_np, rtol=1e-12)
    assert combine_figures([(diffs_t, allowed_t)], len(kv)).holds


@pytest.mark.parametrize("heads, rows", [(None, None), (4, None), (None, 7), (4, 7)])
@pytest.mark.parametrize("cell", [(2, 30, 3), (2, 3, 30)])  # a key the query sees; one after it (must be 0)
def test_a_planted_error_is_found_by_both_at_its_head(heads, rows, cell):
    """Rows 7 a block: cell (3, 30) lies past the block's keys (read from A alone), else in its tile."""
    Q, K, A, scale, kind, M, kv = _layer("causal")
    A = A.clone()
    A[cell] += 0.25
    diffs_np, allowed = _oracle(Q, K, A, scale, kind, M, kv, "float32")
    diffs_t, _ = torch_figures(Q, K, A, scale, ("causal", None), "float32", kv, rows=rows, heads=heads)
    for diffs in (diffs_np, diffs_t):
        assert int(np.argmax(diffs)) == 2 and diffs[2] == pytest.approx(0.25, abs=1e-6)
        assert not combine_figures([(diffs, allowed)], 4).holds


@pytest.mark.parametrize("threads, heads", [(3, None), (2, 6), (1, None)])
def test_the_check_spreads_heads_over_torchs_threads_and_gives_them_back(threads, heads):
    """On CPU the heads are spread over Python threads, torch's operations on one thread in each
    (heads=6: one group, run in the caller's thread); after it the caller and any new thread have
    the caller's setting, and the figures do not depend on the thread count."""
    Q, K, A, scale, kind, M, kv = _layer("causal", H=6, H_kv=3)
    before = torch.get_num_threads()
    seen = []
    torch.set_num_threads(threads)
    try:
        diffs, allowed = torch_figures(Q, K, A, scale, ("causal", None), "float32", kv, heads=heads)
        seen.append(torch.get_num_threads())
        fresh = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))  # reads torch's global
        fresh.start()
        fresh.join()
    finally:
        torch.set_num_threads(before)
    assert seen == [threads, threads]
    diffs_np, allowed_np = _oracle(Q, K, A, scale, kind, M, kv, "float32")
    np.testing.assert_allclose(diffs, diffs_np, rtol=0, atol=64 * EPS64)
    np.testing.assert_allclose(allowed, allowed_np, rtol=1e-12)


@pytest.mark.parametrize("where", ["all", "one cell", "a blocked cell"])
def test_nan_in_the_models_A_fails_both_checks(where):
    Q, K, A, scale, kind, M, kv = _layer("causal")
    A = A.clone()
    if where == "all":
        A[:] = float("nan")
    elif where == "one cell":
        A[1, 20, 4] = float("nan")
    else:
        A[1, 3, 30] = float("nan")  # a key after the query: the model's weight there must be 0
    for diffs, allowed in (
        _oracle(Q, K, A, scale, kind, M, kv, "float32"),
        torch_figures(Q, K, A, scale, ("causal", None), "float32", kv),
        torch_figures(Q, K, A, scale, ("causal", None), "float32", kv, heads=4),  # a GPU's grouping
        torch_figures(Q, K, A, scale, ("causal", None), "float32", kv, rows=7),  # a blocked cell past the block
    ):
        check = combine_figures([(diffs, allowed)], 4)
        assert not check.holds and math.isnan(check.max_abs_diff), (where, diffs)
