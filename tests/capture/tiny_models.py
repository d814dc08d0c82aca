"""Tiny randomly initialised models of each family, saved to a folder with a tokenizer trained
here (tokenizers), so the capture tests never touch a model hub."""

from __future__ import annotations

import importlib
import os

import pytest

NEEDED = ("torch", "transformers", "tokenizers")


def require_models():
    """Skip (saying which extra) without torch, transformers, tokenizers; with ATTN_REQUIRE_MODELS=1
    (.ci/run's models lane) a missing one is an ImportError instead, so a broken install cannot
    pass as a skip."""
    for name in NEEDED:
        if os.environ.get("ATTN_REQUIRE_MODELS") == "1":
            importlib.import_module(name)
        else:
            pytest.importorskip(name, reason=f"{name} is not installed: pip install -e '.[test,models]'")


CORPUS = [
    "the cat sat on the mat and the dog sat on the log",
    "attention is all you need, said the paper; the heads attend",
    "mat was soft, it was warm. The cat was there.\nA new line\tand a tab.",
]


def byte_level_tokenizer(vocab_size: int = 300):
    """A byte-level BPE (GPT-2's scheme: Ġ marks a space) trained on CORPUS, as a fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>")


def wordpiece_tokenizer():
    """A BERT-style WordPiece ([CLS] ... [SEP], ## continuations) trained on CORPUS."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=200, special_tokens=special))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )


def config_of(family: str, vocab: int, **over):
    import transformers as tf

    if family == "gpt2":
        kw = dict(n_layer=2, n_head=4, n_embd=32, n_positions=64, bos_token_id=0, eos_token_id=0)
        return tf.GPT2Config(vocab_size=vocab, **{**kw, **over})
    common = dict(
        num_hidden_layers=2,
        num_attention_heads=4,
        hidden_size=32,
        intermediate_size=64,
        max_position_embeddings=64,
        vocab_size=vocab,
        bos_token_id=0,
        eos_token_id=0,
    )
    if family == "llama":
        return tf.LlamaConfig(**{**common, "num_key_value_heads": 2, **over})
    if family == "mistral":
        return tf.MistralConfig(**{**common, "num_key_value_heads": 2, "sliding_window": 4, **over})
    if family == "qwen2":
        return tf.Qwen2Config(**{**common, "num_key_value_heads": 1, **over})
    if family == "bert":
        return tf.BertConfig(**{**common, "pad_token_id": 0, **over})
    raise ValueError(family)


def save_tiny(folder, family: str, seed: int = 0, lm: bool = False, **over):
    """A tiny random ``family`` model and its tokenizer saved in ``folder``; returns the folder. ``lm``:
    the causal language model (GPT2LMHeadModel: its LM head too), else the base model (GPT2Model)."""
    import torch
    from transformers import AutoModel, AutoModelForCausalLM

    tok = wordpiece_tokenizer() if family == "bert" else byte_level_tokenizer()
    torch.manual_seed(seed)
    cls = AutoModelForCausalLM if lm else AutoModel
    model = cls.from_config(config_of(family, len(tok), **over)).eval()
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
