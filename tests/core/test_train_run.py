"""The task generator, the optimizers, a seeded run and the scaled/unscaled comparison."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.train import compare, head, optim
from attn_tui.core.train.run import Config, Trainer, run, steps_to_target
from attn_tui.core.train.task import Task


def test_task_queries_repeat_their_target_key():
    task = Task()
    X, Y, target = task.batch(np.random.default_rng(1), 50)
    assert X.shape == (50, task.n_queries, task.d_model) and Y.shape == (50, task.n_keys, task.d_model)
    keys, queries = Y.argmax(-1), X.argmax(-1)
    for b in range(50):
        assert len(set(keys[b])) == task.n_keys  # distinct keys
        assert len(set(target[b])) == task.n_queries  # distinct queries
        assert all(keys[b][target[b][t]] == queries[b][t] for t in range(task.n_queries))


def test_task_is_seeded():
    a = Task().batch(np.random.default_rng(5), 4)
    b = Task().batch(np.random.default_rng(5), 4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    X, Y, target, ql, kl = Task().probe(0)
    assert [ql[t][0] for t in range(len(target))] == [kl[i] for i in target]


def test_right_attention_gives_zero_loss():
    p = head.init_params(4, 2, 0)
    X, Y, target, *_ = Task(n_symbols=4, n_keys=3, n_queries=2).probe(0)
    right = np.eye(3)[target]  # (T, T'): one 1 per row, on the matching key
    f = head.forward(p, X[None], Y[None], target[None])
    assert f.loss > 0 and p.W_V.shape == (4, 4)
    assert np.array_equal(right @ f.V[0], f.y[0])  # O = A V with the right A is y: zero loss


@pytest.mark.parametrize("name", optim.OPTIMIZERS)
def test_optimizers_descend_a_quadratic(name):
    opt = optim.make(name, 0.05)
    w = {"x": np.array([3.0, -2.0])}
    for _ in range(300):
        w = opt.step(w, {"x": 2 * w["x"]})
    assert np.linalg.norm(w["x"]) < 0.05


def test_sgd_momentum_formula():
    opt = optim.SGDMomentum(0.1, momentum=0.5)
    w = opt.step({"x": np.array(1.0)}, {"x": np.array(2.0)})  # v = 2, w = 1 − 0.2
    w = opt.step(w, {"x": np.array(1.0)})  # v = 0.5·2 + 1 = 2, w = 0.8 − 0.2
    assert math.isclose(float(w["x"]), 0.6)


def test_default_run_learns_and_is_deterministic():
    cfg = Config()
    a, b = run(cfg), run(cfg)
    assert a == b
    assert a["final_accuracy"] >= 0.9
    assert a["final_loss"] < a["initial_loss"]
    assert a["steps_to_target"] == steps_to_target([{"step": s, "loss": v} for s, v in zip(a["step"], a["loss"])], 0.05)
    assert run(cfg.with_(seed=1))["loss"] != a["loss"]


def test_logged_figures_are_the_eval_sets():
    tr = Trainer(Config(d_k=4, steps=3, log_every=1))
    X, Y, target = tr.eval_set
    f = head.forward(tr.params, X, Y, target, True)
    assert tr.log[0]["loss"] == f.loss
    assert math.isclose(tr.log[0]["mean_p_one_minus_p"], float(np.mean(f.A * (1 - f.A))))
    assert tr.log[0]["accuracy"] == float(np.mean(f.A.argmax(-1) == target))
    tr.step()
    assert [r["step"] for r in tr.log] == [0, 1]
    assert np.allclose(tr.probe_trace().A.sum(-1), 1)
    assert tr.qk_product().shape == (tr.task.d_model, tr.task.d_model)


@pytest.mark.parametrize(
    "bad",
    [{"d_k": 0}, {"steps": 0}, {"lr": -1.0}, {"lr": float("nan")}, {"optimizer": "rmsprop"}, {"task": "copy"}],
)
def test_bad_config_is_refused(bad):
    with pytest.raises(ValueError) as e:
        Config(**bad)
    assert str(e.value).startswith(list(bad)[0])


def test_unscaled_starts_sharper_at_large_d_k():
    out = compare.compare(Config(d_k=64, steps=20))
    s, u = out["scaled"], out["unscaled"]
    assert u["initial_mean_row_entropy_bits"] < s["initial_mean_row_entropy_bits"]
    assert u["mean_p_one_minus_p"] < s["mean_p_one_minus_p"]
    assert s["config"]["lr"] == u["config"]["lr"] and s["config"]["seed"] == u["config"]["seed"]


def _fake(steps_to, acc=1.0):
    return {
        "config": {"steps": 100},
        "target_loss": 0.05,
        "steps_to_target": steps_to,
        "final_accuracy": acc,
        "initial_mean_row_entropy_bits": 1.0,
        "mean_p_one_minus_p": 0.05,
        "wrong_rows": 3,
        "wrong_rows_starved": 2,
        "wrong_rows_target_p_one_minus_p": 1e-5,
    }


@pytest.mark.parametrize(
    "ss, su, words",
    [(10, 30, "3.0× slower"), (30, 10, "3.0× faster"), (10, None, "never reached"), (10, 10, "both reached")],
)
def test_verdict_says_what_was_measured(ss, su, words):
    assert words in compare.verdict(16, _fake(ss), _fake(su))


def test_verdict_with_no_wrong_rows_left():
    u = {**_fake(None), "wrong_rows": 0, "wrong_rows_starved": 0, "wrong_rows_target_p_one_minus_p": None}
    assert "every held-out row puts its largest weight on the right key" in compare.verdict(16, _fake(10), u)
