"""scripts/train_text_model.py's fine-tune flags (docs/TEXT_MODEL.md): --init loads a text model's
weights into the trainer's parameters exactly, or stops with one line naming the file and the key; the
repeats' pool of --repeat-top words drawn by count**--repeat-alpha. Skipped without torch."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tests.core.textmodels import random_text_model, tiny_tokenizer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script():
    pytest.importorskip("torch", reason="torch not installed: pip install -e '.[models]'")
    spec = importlib.util.spec_from_file_location("train_text_model", ROOT / "scripts" / "train_text_model.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fresh_params(script, torch, d: int, heads: int = 4):
    return script.init_params(400, d, heads, torch.Generator().manual_seed(1), 0.1)


def args_for(script, tmp_path, weights, *extra):
    tok = tmp_path / "tok.json"
    tok.write_text(tiny_tokenizer(), encoding="utf-8")
    return script.parse_args(["--init", str(weights), "--tokenizer", str(tok), *extra])


def test_init_loads_every_weight_and_names_where_they_came_from(script, tmp_path):
    import torch
    from safetensors.numpy import load_file

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    p = fresh_params(script, torch, 32)
    args = args_for(script, tmp_path, weights)
    script.init_from(p, args)
    want = load_file(str(weights))
    assert set(p) == set(want)
    for k, t in p.items():
        assert np.array_equal(t.detach().numpy(), want[k]), k  # copied, not re-initialised
    # the random file names no steps, no recipe
    assert args.init_meta == {
        "init_steps": "?",
        "init_seconds": "?",
        "pretrain": "? steps in ? s: ?",
        "n_ctx_train": "?",
    }


def test_a_fine_tunes_file_names_both_stages(script, tmp_path):
    """export() of a fine-tune writes "pretrain" (the --init file's own line, kept through a second
    fine-tune) and "finetune" (its steps, seconds and flags), and the longest windows of the two."""
    import torch
    from safetensors import safe_open

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    p = fresh_params(script, torch, 32)
    args = args_for(script, tmp_path, weights, "--out", str(tmp_path / "out"), "--n-ctx-train", "128")
    script.init_from(p, args)
    args.init_meta |= {"pretrain": "12000 steps on a GPU", "n_ctx_train": "256"}  # as the shipped file says
    tok = script.Tokenizer.from_str(tiny_tokenizer())
    script.export(p, tok, args, {"steps": 7, "seconds": 3.2})
    with safe_open(str(tmp_path / "out" / script.WEIGHTS), "np") as f:
        meta = f.metadata()
    assert meta["pretrain"] == "12000 steps on a GPU"
    assert meta["finetune"].startswith("7 steps in 3 s from the --init weights: ")
    assert "--n-ctx-train 128" in meta["finetune"] and meta["n_ctx_train"] == "256"


def test_init_of_another_shape_exits_2_with_one_line(script, tmp_path, capsys):
    import torch

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    p = fresh_params(script, torch, 64)
    with pytest.raises(SystemExit) as exc:
        script.init_from(p, args_for(script, tmp_path, weights))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(weights) in err[0] and "has shape (400, 32), the model's is (400, 64)" in err[0]


def test_init_of_a_damaged_file_exits_2_naming_it(script, tmp_path, capsys):
    import torch

    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a safetensors file")
    with pytest.raises(SystemExit) as exc:
        script.init_from(fresh_params(script, torch, 32), args_for(script, tmp_path, bad))
    assert exc.value.code == 2
    assert str(bad) in capsys.readouterr().err


def test_repeat_pool_weights_by_count_to_the_alpha(script):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(tiny_tokenizer())
    stream = np.asarray(tok.encode(" the cat sat on the mat the dog the cat").ids, dtype=np.int64)
    args = script.parse_args(["--repeat-top", "3", "--repeat-alpha", "0.5"])
    ids, probs = script.repeat_pool(stream, tok, args)
    counts = np.bincount(stream, minlength=tok.get_vocab_size())[ids]
    assert len(ids) == 3 and counts.tolist() == sorted(counts.tolist(), reverse=True)
    np.testing.assert_allclose(probs, np.sqrt(counts) / np.sqrt(counts).sum(), rtol=4 * np.finfo(float).eps)
    uniform = script.repeat_pool(stream, tok, script.parse_args(["--repeat-top", "3"]))
    assert uniform[1] is None and np.array_equal(uniform[0], ids)  # alpha 0: the shipped recipe's draw


def test_init_shared_adds_one_direction_of_the_norm_embed_shared_gives(script, tmp_path):
    """--init-shared S: every embedding row moves by the same vector, of norm S * sqrt(d), along the
    mean row's direction (EOT, row 0, left out of the mean); the other weights are as loaded."""
    import torch
    from safetensors.numpy import load_file

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    p = fresh_params(script, torch, 32)
    script.init_from(p, args_for(script, tmp_path, weights, "--init-shared", "0.3"))
    want = load_file(str(weights))
    moved = p["embed"].detach().numpy().astype(np.float64) - want["embed"]
    mean = want["embed"][1:].astype(np.float64).mean(0)
    along = 0.3 * np.sqrt(32) * mean / np.linalg.norm(mean)
    eps = np.finfo(np.float32).eps
    np.testing.assert_allclose(moved, np.broadcast_to(along, moved.shape), atol=64 * eps * np.abs(want["embed"]).max())
    assert all(np.array_equal(t.detach().numpy(), want[k]) for k, t in p.items() if k != "embed")


def test_init_shared_without_init_exits_2_with_one_line(script, capsys):
    with pytest.raises(SystemExit) as exc:
        script.main(["--init-shared", "0.1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--init-shared" in err[0] and "--init" in err[0]


@pytest.mark.parametrize("extra", [(), ("--init-shared", "0.1")])
def test_a_damaged_or_mismatched_init_with_init_shared_is_one_line(script, tmp_path, capsys, extra):
    import torch

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(weights.read_bytes()[:100])  # cut short
    for path, d in ((bad, 32), (weights, 64)):
        with pytest.raises(SystemExit) as exc:
            script.init_from(fresh_params(script, torch, d), args_for(script, tmp_path, path, *extra))
        err = capsys.readouterr().err.strip().splitlines()
        assert exc.value.code == 2 and len(err) == 1 and str(path) in err[0]


def test_random_repeat_rows_hold_distinct_ids_of_the_whole_vocabulary_twice(script):
    """--frac-random-repeat 1: every row holds a run of distinct ids followed by the same run, never EOT
    (id 0: all the stream and the pool hold here, so what is not 0 is the run)."""
    args = script.parse_args(["--frac-text-repeat", "0", "--frac-token-repeat", "0", "--frac-random-repeat", "1"])
    args.vocab, args.batch, args.n_ctx_train = 400, 64, 32
    stream = np.zeros(1000, dtype=np.int64)
    rows = script.make_batch(stream, (np.asarray([0]), None), np.random.default_rng(0), args)
    assert rows.shape == (64, 33)
    for row in rows:
        run = row[row != 0]
        k = len(run) // 2
        assert 4 <= k <= 16 and len(run) == 2 * k, row
        assert np.array_equal(run[:k], run[k:]) and len(set(run[:k].tolist())) == k
        assert run.max() < 400
    assert len(np.unique(rows[rows != 0])) > 300  # drawn from the whole vocabulary, not a few ids


def test_a_second_fine_tune_keeps_the_first_ones_line(script, tmp_path):
    """A fine-tune of a fine-tune names every stage: the pretraining, the earlier fine-tune, its own."""
    import torch
    from safetensors import safe_open

    weights = random_text_model(tmp_path, 400, d=32, seed=3)
    p = fresh_params(script, torch, 32)
    args = args_for(script, tmp_path, weights, "--out", str(tmp_path / "out"))
    script.init_from(p, args)
    args.init_meta |= {"pretrain": "12000 steps on a GPU", "earlier_finetunes": "918 steps on a CPU"}
    tok = script.Tokenizer.from_str(tiny_tokenizer())
    script.export(p, tok, args, {"steps": 7, "seconds": 3.2})
    first = tmp_path / "out" / script.WEIGHTS
    second = script.parse_args(["--init", str(first), "--tokenizer", str(tmp_path / "tok.json")])
    script.init_from(fresh_params(script, torch, 32), second)
    assert second.init_meta["pretrain"] == "12000 steps on a GPU"
    assert (second.init_meta["init_steps"], second.init_meta["init_seconds"]) == ("7", "3")  # the first's own
    with safe_open(str(first), "np") as f:
        assert second.init_meta["earlier_finetunes"] == "918 steps on a CPU ; then " + f.metadata()["finetune"]
