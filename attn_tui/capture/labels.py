"""A captured text's token labels, by the rule the built-in text model's are made (core/token_bytes):
a byte-level BPE's tokens (GPT-2's, where Ġ stands for a space) are labelled from the bytes they stand
for, so a byte of a character split over tokens reads <C3>, not the stand-in character 'Ã' its token is
spelt with; any other tokenizer's tokens as capture_check.token_label shows them.

A tokenizer is taken as byte-level on a text only when it shows it: each token stands for bytes through
GPT-2's table, and those bytes, joined, decode to what the tokenizer itself decodes the ids to. A
WordPiece or SentencePiece token ('é', '▁cat') fails one or the other, and keeps the plain rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.heads.capture_check import token_label
from ..core.token_bytes import byte_label, byte_level_bytes


def byte_level(tokenizer: Any, raw: Sequence[str], ids: Sequence[int]) -> bool:
    """Whether ``tokenizer``'s tokens ``raw`` (of ids ``ids``) are byte-level, as the module says."""
    try:
        pieces = [byte_level_bytes(t) for t in raw]
        decoded = tokenizer.decode(list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False)
    except Exception:  # a token of no byte (ValueError), a tokenizer that cannot decode them alone
        return False
    return isinstance(decoded, str) and b"".join(pieces).decode("utf-8", "replace") == decoded


def labeller(tokenizer: Any, bytes_of_tokens: bool) -> Callable[[int], str]:
    """Token id -> its label: from its bytes when ``bytes_of_tokens`` (byte_level held on the text),
    else decoded by the tokenizer, or its own token (Ġ as a space) where decoding alone gives no
    character (a byte of a character split over tokens decodes to �)."""

    def label(v: int) -> str:
        raw = str(tokenizer.convert_ids_to_tokens(int(v)))
        if bytes_of_tokens:
            try:
                return byte_label(byte_level_bytes(raw))
            except ValueError:  # a token outside the text (an added token) may be spelt otherwise
                pass
        text = tokenizer.decode([int(v)])
        return token_label(raw if "\ufffd" in text or not text else text)

    return label


def token_labels(raw: Sequence[str], bytes_of_tokens: bool) -> list[str]:
    """The text's labels: from each token's bytes when ``bytes_of_tokens``, else capture_check.token_label."""
    if bytes_of_tokens:
        return [byte_label(byte_level_bytes(t)) for t in raw]
    return [token_label(t) for t in raw]
