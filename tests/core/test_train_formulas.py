"""Formulas of the training core, each recomputed independently: Adam's steps, the Jacobian,
the logged metrics, the stalled-row counts, the progress callbacks, the symbol names."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.info import entropy_bits
from attn_tui.core.train import compare, head, optim
from attn_tui.core.train.run import STARVED, Config, Trainer, run
from attn_tui.core.train.task import Task, symbol_name


def test_adam_two_steps_by_the_formula():
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    opt = optim.make("adam", lr)
    w0 = np.array([1.0, -2.0])
    g1, g2 = np.array([0.5, -3.0]), np.array([-1.0, 0.25])
    w1 = opt.step({"w": w0}, {"w": g1})["w"]
    m, v = (1 - b1) * g1, (1 - b2) * g1**2
    want1 = w0 - lr * (m / (1 - b1)) / (np.sqrt(v / (1 - b2)) + eps)
    np.testing.assert_allclose(w1, want1, rtol=1e-12)
    w2 = opt.step({"w": w1}, {"w": g2})["w"]
    m, v = b1 * m + (1 - b1) * g2, b2 * v + (1 - b2) * g2**2
    want2 = w1 - lr * (m / (1 - b1**2)) / (np.sqrt(v / (1 - b2**2)) + eps)
    np.testing.assert_allclose(w2, want2, rtol=1e-12)
    assert (opt.lr, opt.b1, opt.b2, opt.eps, opt.t) == (lr, b1, b2, eps, 2)


def test_make_names_and_momentum():
    assert isinstance(optim.make("sgd", 0.3), optim.SGDMomentum) and optim.make("sgd", 0.3).momentum == 0.9
    assert optim.make("sgd", 0.3).lr == 0.3 and optim.make("adam", 0.2).lr == 0.2
    with pytest.raises(ValueError, match="optimizer: unknown 'x'; use sgd, adam"):
        optim.make("x", 0.1)


def test_metrics_recomputed_row_by_row():
    tr = Trainer(Config(d_k=8, steps=1))
    X, Y, target = tr.eval_set
    f = head.forward(tr.params, X, Y, target, True)
    rows = f.A.reshape(-1, f.A.shape[-1])
    m = head.metrics(f)
    assert m["mean_row_entropy_bits"] == pytest.approx(np.mean([entropy_bits(r) for r in rows]), rel=1e-12)
    assert m["mean_p_one_minus_p"] == pytest.approx(np.mean([p * (1 - p) for r in rows for p in r]), rel=1e-12)
    assert m["accuracy"] == np.mean([int(np.argmax(r)) == t for r, t in zip(rows, target.reshape(-1), strict=True)])
    assert m["loss"] == f.loss


def test_stalled_rows_counted_from_the_held_out_set():
    tr = Trainer(Config(d_k=64, scaled=False, steps=30))
    while not tr.done:
        tr.step()
    X, Y, target = tr.eval_set
    A = head.forward(tr.params, X, Y, target, False).A.reshape(-1, tr.task.n_keys)
    wrong = [(r, t) for r, t in zip(A, target.reshape(-1), strict=True) if int(np.argmax(r)) != t]
    got = tr.summary()
    assert got["wrong_rows"] == len(wrong) > 0
    assert got["wrong_rows_starved"] == sum(r[t] < STARVED for r, t in wrong)
    assert got["wrong_rows_target_p_one_minus_p"] == pytest.approx(np.mean([r[t] * (1 - r[t]) for r, t in wrong]))
    assert got["rows"] == target.size


def test_summary_fields_are_the_log_ends():
    r = run(Config(d_k=4, steps=20, log_every=5))
    assert r["step"] == [0, 5, 10, 15, 20]
    assert r["initial_loss"] == r["loss"][0] and r["final_loss"] == r["loss"][-1]
    assert r["final_accuracy"] == r["accuracy"][-1]
    assert r["initial_mean_row_entropy_bits"] == r["mean_row_entropy_bits"][0]
    assert r["final_mean_row_entropy_bits"] == r["mean_row_entropy_bits"][-1]
    assert r["mean_p_one_minus_p"] == r["mean_p_one_minus_p_curve"][0]
    assert r["final_mean_p_one_minus_p"] == r["mean_p_one_minus_p_curve"][-1]
    assert r["target_loss"] == 0.05 and r["config"]["d_k"] == 4


def test_progress_callbacks():
    seen = []
    run(Config(d_k=2, steps=3), progress=lambda s, n: seen.append((s, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    seen.clear()
    compare.compare(Config(d_k=2, steps=2), progress=lambda *a: seen.append(a))
    assert seen == [("scaled", 1, 2), ("scaled", 2, 2), ("unscaled", 1, 2), ("unscaled", 2, 2)]
    seen.clear()
    rows = compare.compare_all(Config(steps=1), (2, 3), progress=lambda *a: seen.append(a))
    assert seen == [(2, "scaled", 1, 1), (2, "unscaled", 1, 1), (3, "scaled", 1, 1), (3, "unscaled", 1, 1)]
    assert [r["d_k"] for r in rows] == [2, 3]
    assert [r[k]["config"]["d_k"] for r in rows for k in ("scaled", "unscaled")] == [2, 2, 3, 3]
    assert [r[k]["config"]["scaled"] for r in rows for k in ("scaled", "unscaled")] == [True, False, True, False]
    assert rows[1]["verdict"] == compare.verdict(3, rows[1]["scaled"], rows[1]["unscaled"])


def _run(steps_to, acc=0.5, wrong=3):
    return {
        "config": {"steps": 100},
        "target_loss": 0.05,
        "steps_to_target": steps_to,
        "final_accuracy": acc,
        "initial_mean_row_entropy_bits": 1.25,
        "mean_p_one_minus_p": 0.0625,
        "wrong_rows": wrong,
        "wrong_rows_starved": 2,
        "wrong_rows_target_p_one_minus_p": 2.5e-5,
    }


def test_verdict_quotes_the_measured_numbers():
    s = {**_run(20, acc=1.0), "initial_mean_row_entropy_bits": 2.5, "mean_p_one_minus_p": 0.1}
    never = compare.verdict(16, s, _run(None))
    assert never.startswith("d_k = 16: unscaled never reached loss ≤ 0.05 in 100 steps (scaled: 20)")
    assert "final accuracy 0.50 vs 1.00" in never and f"sd ≈ √d_k = {math.sqrt(16):.3g}" in never
    assert "mean row entropy at step 0 1.25 vs 2.50 bits, mean p(1−p) 0.062 vs 0.100" in never
    assert "2 of its 3 wrong rows give the right key p < 0.001" in never and "(mean 2.5e-05)" in never
    slower = compare.verdict(4, s, _run(50))
    assert "2.5× slower (50 vs 20 steps)" in slower
    faster = compare.verdict(4, _run(50), s)
    assert "2.5× faster (20 vs 50 steps)" in faster
    assert "neither run reached loss ≤ 0.05 in 100 steps" in compare.verdict(4, _run(None), _run(None))
    assert "only unscaled reached loss ≤ 0.05 (30 steps of 100)" in compare.verdict(4, _run(None), _run(30))


def test_symbol_names_and_the_probe_labels():
    assert [symbol_name(i) for i in (0, 1, 25, 26, 30)] == ["a", "b", "z", "s26", "s30"]
    X, Y, target, q, k = Task().probe(3)
    assert q == [symbol_name(int(np.argmax(x))) + "?" for x in X]
    assert k == [symbol_name(int(np.argmax(y))) for y in Y]
    assert X.shape == (4, 16) and Y.shape == (8, 16) and len(target) == 4
    assert not np.array_equal(Task().probe(4)[0], X) or not np.array_equal(Task().probe(4)[1], Y)


def test_probe_trace_is_the_heads_attention():
    tr = Trainer(Config(d_k=4, scaled=False, steps=2))
    X, Y, *_ = tr.probe
    p = tr.params
    want = head.softmax((X @ p.W_Q) @ (Y @ p.W_K).T)  # unscaled: c = 1
    np.testing.assert_allclose(tr.probe_trace().A, want, atol=1e-15)
    np.testing.assert_allclose(tr.probe_trace().O, want @ (Y @ p.W_V), atol=1e-15)
    scaled = Trainer(Config(d_k=4, steps=2))
    np.testing.assert_allclose(scaled.probe_trace().S, (X @ p.W_Q) @ (Y @ p.W_K).T / 2, atol=1e-12)


def test_steps_to_target_is_the_first_logged_step_at_or_below():
    from attn_tui.core.train.run import steps_to_target

    log = [{"step": 0, "loss": 0.3}, {"step": 10, "loss": 0.05}, {"step": 20, "loss": 0.01}]
    assert steps_to_target(log, 0.05) == 10 and steps_to_target(log, 0.01) == 20
    assert steps_to_target(log, 0.001) is None


def test_the_last_step_is_logged_and_the_gradient_norm_is_the_backwards():
    tr = Trainer(Config(d_k=4, steps=7, log_every=5))
    X, Y, target = tr.eval_set
    g = head.backward(tr.params, head.forward(tr.params, X, Y, target, True))
    assert tr.log[0]["grad_norm"] == pytest.approx(math.sqrt(sum(float(np.sum(v**2)) for v in g.values())))
    while not tr.done:
        tr.step()
    assert [r["step"] for r in tr.log] == [0, 5, 7]


def test_scaled_and_unscaled_share_initialisation_and_batches():
    a, b = Trainer(Config(d_k=8, steps=2)), Trainer(Config(d_k=8, steps=2, scaled=False))
    np.testing.assert_array_equal(a.params.W_Q, b.params.W_Q)
    np.testing.assert_array_equal(a.params.W_K, b.params.W_K)
    for x, y in zip(a.task.batch(a.rng, 4), b.task.batch(b.rng, 4), strict=True):
        np.testing.assert_array_equal(x, y)
    assert a.log[0]["loss"] != b.log[0]["loss"]  # the same weights read with c = 1/√8 and with c = 1
