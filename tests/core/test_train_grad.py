"""The hand-written backward of the training head, against torch autograd and finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.train import head
from attn_tui.core.train.task import Task


def setup(d_k=6, scaled=True, seed=3, batch=5):
    task = Task(n_symbols=7, n_keys=5, n_queries=3)
    X, Y, target = task.batch(np.random.default_rng(seed), batch)
    p = head.init_params(task.d_model, d_k, seed)
    return p, X, Y, target


def loss_at(p, X, Y, target, scaled, **change):
    q = head.Params(change.get("W_Q", p.W_Q), change.get("W_K", p.W_K), p.W_V)
    return head.forward(q, X, Y, target, scaled).loss


def jacobian(p):
    """The softmax Jacobian of one row p: diag(p) − p pᵀ, (T', T') (the reference the backward is checked by)."""
    p = np.asarray(p, dtype=np.float64)
    return np.diag(p) - np.outer(p, p)


def test_jacobian_is_diag_minus_outer():
    """The reference itself, against numbers worked by hand."""
    J = jacobian([0.2, 0.8])
    np.testing.assert_allclose(J, [[0.2 - 0.04, -0.16], [-0.16, 0.8 - 0.64]], atol=1e-15)


def test_softmax_backward_is_the_jacobian_product():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((3, 6))
    dA = rng.standard_normal((3, 6))
    A = head.softmax(S)
    want = np.stack([jacobian(A[t]) @ dA[t] for t in range(3)])
    np.testing.assert_allclose(head.softmax_backward(A, dA), want, atol=1e-15)
    assert np.allclose(np.diag(jacobian(A[0])), A[0] * (1 - A[0]))


@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("d_k", [1, 6])
def test_gradients_match_finite_differences(scaled, d_k):
    p, X, Y, target = setup(d_k=d_k, scaled=scaled)
    g = head.backward(p, head.forward(p, X, Y, target, scaled))
    h = 1e-6
    for name in ("W_Q", "W_K"):
        W = getattr(p, name)
        num = np.zeros_like(W)
        for i, j in np.ndindex(W.shape):
            plus, minus = W.copy(), W.copy()
            plus[i, j] += h
            minus[i, j] -= h
            num[i, j] = (
                loss_at(p, X, Y, target, scaled, **{name: plus}) - loss_at(p, X, Y, target, scaled, **{name: minus})
            ) / (2 * h)
        np.testing.assert_allclose(g[name], num, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("d_k", [1, 4, 64, 256])
def test_gradients_match_torch_autograd(scaled, d_k):
    torch = pytest.importorskip("torch", reason="torch is not installed: the autograd oracle needs it")
    p, X, Y, target = setup(d_k=d_k, scaled=scaled, batch=8)
    f = head.forward(p, X, Y, target, scaled)
    g = head.backward(p, f)
    WQ = torch.tensor(p.W_Q, dtype=torch.float64, requires_grad=True)
    WK = torch.tensor(p.W_K, dtype=torch.float64, requires_grad=True)
    Xt, Yt = torch.tensor(X), torch.tensor(Y)
    V = Yt @ torch.tensor(p.W_V)
    S = (Xt @ WQ) @ (Yt @ WK).transpose(-1, -2) * (1 / d_k**0.5 if scaled else 1.0)
    O = torch.softmax(S, dim=-1) @ V
    y = torch.gather(V, 1, torch.tensor(target)[..., None].expand(-1, -1, V.shape[-1]))
    loss = 0.5 * ((O - y) ** 2).sum(-1).mean()
    loss.backward()
    assert abs(loss.item() - f.loss) <= 1e-12
    for name, W in (("W_Q", WQ), ("W_K", WK)):
        assert np.max(np.abs(g[name] - W.grad.numpy())) <= 1e-9, name


def test_a_saturated_row_passes_no_gradient():
    """p → one-hot: diag(p) − ppᵀ → 0, so dS → 0 whatever dA is (the lesson's claim)."""
    A = head.softmax(np.array([[40.0, 0.0, -3.0]]))
    dS = head.softmax_backward(A, np.array([[1.0, -2.0, 5.0]]))
    assert np.max(np.abs(dS)) < 1e-15
    dS_soft = head.softmax_backward(head.softmax(np.array([[0.4, 0.0, -0.3]])), np.array([[1.0, -2.0, 5.0]]))
    assert np.max(np.abs(dS_soft)) > 0.1
