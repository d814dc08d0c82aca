"""How a model of core/models reads a text: the Tokenizer protocol and its two implementations.

``encode(text) -> Encoded``: the ids the model reads, each token's label on screen, and the
tokenizer's own token strings. ``decode(ids) -> str``: the text again.

- ``Letters``: the induction demo's letters a..z, separated by spaces.
- ``BytePairs``: a byte-level BPE (the text model's), the `tokenizers` library imported when the
  first one is made, never at launch. Its labels are made from each token's bytes (core/token_bytes.py:
  byte_label): a token's leading space is a space (" cat"), a token of whitespace only is drawn as
  signs (␣ ↵), and a byte of a character split over tokens as <C3>; ``drawn`` is the text as the token
  view draws it (each split character on the token that completes it, ◌ on the ones before).

A text the model cannot read is an InputError (a ValueError): one line that speaks of the text,
never of a command-line flag (the CLI and the dialogs add their own field's name).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..token_bytes import byte_label, byte_level_bytes, drawn_texts

if TYPE_CHECKING:
    from typing import Any


class InputError(ValueError):
    """Input a model or a source cannot take: one line naming what is wrong and where, about the input
    itself. ``field``: what the input is ("layer", "head"; None for a text, whose flag or field the
    caller knows): the CLI writes it as its flag, "--layer: ..."."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Encoded:
    """ids (T,) int64; labels: each token as the screen shows it; raw: the tokenizer's own strings
    ('Ġcat'), () when they are the labels."""

    ids: np.ndarray
    labels: tuple[Any, ...]
    raw: tuple[Any, ...] = ()
    drawn: tuple[Any, ...] = ()  # each token's text in the token view, () when it is the label


class Tokenizer(Protocol):
    what: str  # what a text is to this tokenizer, for a dialog's title and the CLI's help

    def encode(self, text: str) -> Encoded: ...

    def decode(self, ids: np.ndarray) -> str: ...


@dataclass(frozen=True)
class Letters:
    """Tokens separated by spaces, each one of ``vocab`` (the induction demo's a..z)."""

    vocab: tuple[Any, ...]
    what: str = "letters a..z separated by spaces"

    def encode(self, text: str) -> Encoded:
        words = text.split()
        if not words:
            raise InputError('no tokens; give letters a..z separated by spaces, e.g. "q w e r q w e r"')
        index = {w: i for i, w in enumerate(self.vocab)}
        for t, w in enumerate(words, 1):
            if w not in index:
                raise InputError(
                    f"token {t} is {w!r}, not in the model's vocabulary "
                    f"({self.vocab[0]}..{self.vocab[-1]}, one letter each, separated by spaces)"
                )
        return Encoded(np.array([index[w] for w in words]), tuple(words))

    def decode(self, ids: np.ndarray) -> str:
        return " ".join(self.vocab[int(i)] for i in ids)


class BytePairs:
    """A `tokenizers` byte-level BPE read from its JSON (Tokenizer.to_str()); nothing is added at encode."""

    what = "any English text"

    def __init__(self, json_text: str) -> None:
        from tokenizers import Tokenizer as HFTokenizer  # only when the text model is used

        self._tok = HFTokenizer.from_str(json_text)

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size(with_added_tokens=True)

    @cached_property
    def max_token_bytes(self) -> int:
        """The most bytes one token stands for (a byte-level token is one character a byte): a text of
        b bytes has at least b / max_token_bytes tokens, known before it is tokenized."""
        return max(len(token) for token in self._tok.get_vocab(with_added_tokens=True))

    def encode(self, text: str) -> Encoded:
        if not text.strip():
            raise InputError('no text; type a sentence, e.g. "The cat sat on the mat."')
        enc = self._tok.encode(text, add_special_tokens=False)
        raw = tuple(enc.tokens)
        pieces = [byte_level_bytes(t) for t in raw]
        labels = tuple(byte_label(p) for p in pieces)
        return Encoded(np.array(enc.ids, dtype=np.int64), labels, raw, drawn_texts(pieces))

    def label(self, i: int) -> str:
        """Token id ``i``'s label, as encode labels it (a prediction's next token, out of any text)."""
        token = self._tok.id_to_token(int(i))
        if token is None:
            raise ValueError(f"token id {i}: not in the vocabulary of {self._tok.get_vocab_size()} ids")
        return byte_label(byte_level_bytes(token))

    def decode(self, ids: np.ndarray) -> str:
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=False)
