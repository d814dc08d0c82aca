"""A text model of the shipped format (core/models/text.py) with random weights, and a tiny byte-level
BPE trained here with `tokenizers`: what the text model's tests run on when its files are not shipped."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attn_tui.core.models.text import FORMAT, TOKENIZER, WEIGHTS, load_text_model

TRAIN = [
    "The cat sat on the mat. The dog sat on the log. A bird sang in the tree by the river.",
    "She walked to the station in the rain, and he waited for her at the door of the house.",
]


def tiny_tokenizer(vocab: int = 400) -> str:
    """A byte-level BPE (ByteLevel pre-tokenizer without a prefix space, ByteLevel decoder,
    <|endoftext|> id 0), as Tokenizer.to_str()."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(TRAIN * 10, trainer)
    return tok.to_str()


def random_text_model(folder: Path, vocab: int, d: int = 32, H: int = 4, L: int = 2, n_ctx: int = 1024, seed=0):
    """Write text_model.safetensors (float32, the FORMAT's keys and metadata) with random weights
    into ``folder``; its path."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    dh = d // H
    w = {"embed": rng.standard_normal((vocab, d)), "ln_final": 1 + 0.1 * rng.standard_normal(d)}
    w["unembed"] = rng.standard_normal((d, vocab)) / np.sqrt(d)
    for i in range(L):
        w[f"layers.{i}.ln"] = 1 + 0.1 * rng.standard_normal(d)
        for name in ("W_Q", "W_K", "W_V"):
            w[f"layers.{i}.{name}"] = rng.standard_normal((H, d, dh)) / np.sqrt(d) * 2
        w[f"layers.{i}.W_O"] = rng.standard_normal((H, dh, d)) / np.sqrt(d)
    meta = {"format": FORMAT, "n_layers": str(L), "n_heads": str(H), "d_model": str(d), "d_head": str(dh)}
    meta |= {"n_ctx": str(n_ctx), "rope_base": "10000", "ln_eps": "1e-05", "corpus": "random", "seed": str(seed)}
    path = Path(folder) / WEIGHTS.name
    save_file({k: v.astype(np.float32) for k, v in w.items()}, str(path), metadata=meta)
    return path


def random_model(folder: Path):
    """A TextModel with random weights and the tiny tokenizer, both written into ``folder``."""
    tok = Path(folder) / TOKENIZER.name
    tok.write_text(tiny_tokenizer(), encoding="utf-8")
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_str(tok.read_text(encoding="utf-8")).get_vocab_size(with_added_tokens=True)
    return load_text_model(random_text_model(folder, vocab), tok)


def shipped() -> bool:
    """True when the text model's files ship in the package."""
    return WEIGHTS.is_file() and TOKENIZER.is_file()


def text_demo_model(monkeypatch, folder: Path):
    """The text model text-demo runs: the shipped one, or (before it ships) random weights of its format
    written into ``folder`` and put in its place for the test."""
    from attn_tui.core.models import MODELS, text

    if not shipped():
        m = random_model(folder)
        monkeypatch.setattr(text, "shipped_text_model", lambda: m)
    return MODELS["text-demo"].model()
