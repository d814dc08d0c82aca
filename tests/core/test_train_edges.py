"""core.train at its edges, written to kill the mutants of core/train/*.py (scripts/mutation.sh):
Config's and Task's bounds and words, the step counter (first: its endless-loop mutant then fails
at once instead of timing out), the learned head as a scenario, the probe drawn from
default_rng([seed, 1]), the forward pass's defaults and S, stuck() from the scaled head, the
initial gradient norm in the summary, and a verdict between 1x and 2x slower. Expectations are
recomputed here with NumPy from the documented draws and formulas."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.train import compare, head
from attn_tui.core.train.run import Config, Trainer
from attn_tui.core.train.scenario import learned_scenario
from attn_tui.core.train.task import Task


def test_each_step_counts_one():
    tr = Trainer(Config(d_k=2, steps=3, eval_size=4, batch=2))
    for n in (1, 2, 3):
        tr.step()
        assert tr.step_count == n
    assert tr.done and [r["step"] for r in tr.log] == [0, 3]


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"steps": True}, "steps: True must be a whole number from 1 to 100,000"),
        ({"lr": 0}, "lr: 0 must be a number above 0 and at most 100"),
        ({"lr": 100.5}, "lr: 100.5 must be a number above 0 and at most 100"),
        ({"optimizer": "rms"}, "optimizer: unknown 'rms'; use sgd, adam"),
        ({"seed": 2**32}, "seed: 4294967296 must be a whole number from 0 to 4,294,967,295"),
    ],
)
def test_config_refusals_word_for_word(kw, words):
    with pytest.raises(ValueError) as err:
        Config(**kw)
    assert str(err.value) == words


def test_config_bounds_are_inclusive():
    c = Config(d_k=512, steps=100_000, batch=4096, log_every=100_000, lr=100, seed=2**32 - 1)
    assert (c.d_k, c.lr, c.seed) == (512, 100, 2**32 - 1) and Config(seed=64).seed == 64


def test_task_bounds_and_words():
    t = Task(n_symbols=1, n_keys=1, n_queries=1)  # the smallest task: one symbol, asked once
    assert t.d_model == 1
    for kw in ({"n_queries": 0}, {"n_queries": 5, "n_keys": 4}, {"n_keys": 17}):
        with pytest.raises(ValueError) as err:
            Task(**kw)
        assert str(err.value) == "task: need 1 <= n_queries <= n_keys <= n_symbols"


def test_the_probe_is_drawn_from_default_rng_seed_1():
    rng = np.random.default_rng([7, 1])
    keys = np.argsort(rng.random((1, 16)), axis=1)[0, :8]  # 8 distinct symbols of 16
    target = np.argsort(rng.random((1, 8)), axis=1)[0, :4]  # 4 distinct key positions
    X, Y, t, q, k = Task().probe(7)
    np.testing.assert_array_equal(Y, np.eye(16)[keys])
    np.testing.assert_array_equal(t, target)
    np.testing.assert_array_equal(X, np.eye(16)[keys[target]])


def test_forward_is_scaled_by_default_and_keeps_s():
    p = head.init_params(16, 4, 0)
    X, Y, target = Task().batch(np.random.default_rng(1), 2)
    f = head.forward(p, X, Y, target)
    assert f.c == 0.5
    np.testing.assert_allclose(f.S, 0.5 * (X @ p.W_Q) @ np.swapaxes(Y @ p.W_K, -1, -2), rtol=1e-12)


def test_the_learned_head_as_a_scenario():
    for scaled, words in ((True, "1/√d_k"), (False, "unscaled")):
        tr = Trainer(Config(d_k=3, steps=2, seed=5, scaled=scaled, eval_size=4, batch=2))
        tr.step()
        s = learned_scenario(tr)
        X, Y = tr.probe[0], tr.probe[1]
        names = [chr(ord("a") + int(i)) for i in np.argmax(X, axis=1)]
        assert s.title == f"learned head: assoc-recall, d_k = 3, {words}, step 1, seed 5"
        assert s.tokens == tuple(n + "?" for n in names)
        assert s.key_tokens == tuple(chr(ord("a") + int(i)) for i in np.argmax(Y, axis=1))
        assert s.features == tuple("abcdefghijklmnop")
        for name, want in (("X", X), ("Y", Y), ("W_Q", tr.params.W_Q), ("W_K", tr.params.W_K), ("W_V", np.eye(16))):
            np.testing.assert_array_equal(getattr(s, name), want)
        assert (s.mask, s.scaled, s.focus_row, s.c) == ("none", scaled, 1, 1.0)


def test_stuck_rows_are_read_from_the_scaled_head():
    tr = Trainer(Config(d_k=8, steps=1, seed=2, eval_size=64, batch=2))
    X, Y, target = tr.eval_set
    S = (X @ tr.params.W_Q) @ np.swapaxes(Y @ tr.params.W_K, -1, -2) / np.sqrt(8)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    wrong = np.argmax(A, axis=-1) != target
    p = np.take_along_axis(A, target[..., None], axis=-1)[..., 0][wrong]
    got = tr.stuck()
    assert got["wrong_rows"] == int(wrong.sum()) > 0
    assert got["wrong_rows_starved"] == int((p < 1e-3).sum())
    assert got["wrong_rows_target_p_one_minus_p"] == pytest.approx(float(np.mean(p * (1 - p))), rel=1e-12)
    assert tr.summary()["initial_grad_norm"] == tr.log[0]["grad_norm"] > 0


def test_a_verdict_between_one_and_two_times_slower():
    base = {"config": {"steps": 100}, "target_loss": 0.05, "initial_mean_row_entropy_bits": 1.0,
            "mean_p_one_minus_p": 0.1, "wrong_rows": 0}  # fmt: skip
    v = compare.verdict(4, base | {"steps_to_target": 100}, base | {"steps_to_target": 150})
    assert v.startswith("d_k = 4: unscaled reached loss ≤ 0.05 1.5× slower (150 vs 100 steps).")
