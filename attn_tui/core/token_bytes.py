"""A byte-level tokenizer's tokens as the bytes they stand for, and how those bytes are shown.

A byte-level BPE (GPT-2's, the text model's) splits a character's UTF-8 bytes over tokens when its
vocabulary has no token for the whole character: "ä" is C3 A4, often two tokens. Decoding one such
token alone gives U+FFFD (�) for every such byte, so "l", "�", "�" said nothing of which bytes. Here
one rule for every place a token is named (the grids, the token view's lists, a prediction, JSON):

- ``byte_label(data)``: the token's whole characters as themselves, each byte of a character the token
  does not hold whole as ``<C3>`` (its value in hex), whitespace and length as ``labeltext.token_label``
  shows them (a token of spaces only is ␣, a newline ↵), cut at ``TOKEN_LABEL_MAX`` between marks;
- ``drawn_texts(pieces)``: a sequence's tokens as the token view draws its text, reading as typed: a
  character split over tokens is drawn on the token that completes it, and each token before that
  holds a byte of it draws ``PARTIAL`` (◌, one cell) in its place;
- ``byte_level_bytes(raw)``: the bytes a byte-level token ('Ġl', 'Ã') stands for, through GPT-2's
  byte-to-character table (``bytes_to_unicode``), the table `tokenizers`' ByteLevel uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .labeltext import TOKEN_LABEL_MAX, shows_something

PARTIAL = "◌"  # U+25CC DOTTED CIRCLE: a byte of a character a later token completes (one cell wide)
BYTE_MARK = re.compile(r"<[0-9A-F]{2}>")  # a byte as byte_label writes it
BYTE_LEVEL = "byte_level"  # a capture's provenance key: True when its labels were made from its tokens' bytes
_SIGNS = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}


@lru_cache(maxsize=1)
def _byte_of() -> dict[str, int]:
    """GPT-2's bytes_to_unicode inverted: each printable stand-in character -> its byte."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    moved = [b for b in range(256) if b not in kept]
    table = {chr(b): b for b in kept}
    table.update({chr(256 + n): b for n, b in enumerate(moved)})
    return table


def byte_level_bytes(raw: str) -> bytes:
    """The bytes of a byte-level BPE token ('Ġl' -> b' l', 'Ã' -> b'\\xc3'); ValueError naming a
    character that is not one of the table's 256."""
    table = _byte_of()
    bad = next((ch for ch in raw if ch not in table), None)
    if bad is not None:
        raise ValueError(f"{raw!r} is not a byte-level token: {bad!r} stands for no byte")
    return bytes(table[ch] for ch in raw)


def split_utf8(data: bytes) -> list[tuple[str | None, bytes]]:
    """``data`` as [(a whole character, its bytes) or (None, one byte of no whole character here)].

    >>> split_utf8("lä".encode()[:2])
    [('l', b'l'), (None, b'\\xc3')]
    """
    out: list[tuple[str | None, bytes]] = []
    i = 0
    while i < len(data):
        for n in range(1, 5):
            chunk = data[i : i + n]
            try:
                ch = chunk.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append((ch, chunk))
            i += n
            break
        else:
            out.append((None, data[i : i + 1]))
            i += 1
    return out


def _mark(data: bytes) -> str:
    return "".join(f"<{b:02X}>" for b in data)


def _unit(ch: str | None, data: bytes) -> str:
    """One character or byte as a label shows it: a byte as <C3>, a newline/tab/CR as its sign, any
    other character that does not print (a control character) as its bytes."""
    if ch is None:
        return _mark(data)
    if ch in "\n\t\r":
        return _SIGNS[ch]
    return ch if ch.isprintable() or ch == " " else _mark(data)


def _shown(units: list[str], most: int | None = TOKEN_LABEL_MAX) -> str:
    """A token's units, joined: spaces only as ␣ signs; cut to ``most`` between units (… last; None: whole)."""
    if units and all(u == " " for u in units):
        units = ["␣"] * len(units)
    text = "".join(units)
    if most is None or len(text) <= most:
        return text or "∅"
    kept, size = [], 0
    for u in units:
        if size + len(u) > most - 1:
            break
        kept.append(u)
        size += len(u)
    return "".join(kept) + "…"


def byte_label(data: bytes) -> str:
    """A token's label from its bytes: b' l\\xc3' -> ' l<C3>', b'\\xa4u' -> '<A4>u', b' ' -> '␣'. A token
    whose characters draw nothing alone (a combining accent, a joiner) is shown as its bytes."""
    label = _shown([_unit(ch, part) for ch, part in split_utf8(data)])
    return label if shows_something(label) else _shown([_mark(bytes([b])) for b in data])


def drawn_texts(pieces: Sequence[bytes]) -> tuple[str, ...]:
    """Each token's text as the token view draws the sequence: whole characters where a token holds
    their last byte, PARTIAL where it holds an earlier byte of a character a later token completes (one
    mark a character), a byte of no character at all as <C3>; never cut (labels are, the text is not).
    [b' l', b'\\xc3', b'\\xa4u'] -> (' l', '◌', 'äu'): joined, " l◌äu"."""
    owner: list[int] = []  # the token of each byte
    for k, piece in enumerate(pieces):
        owner.extend([k] * len(piece))
    units: list[list[str]] = [[] for _ in pieces]
    at = 0
    for ch, part in split_utf8(b"".join(pieces)):
        last = owner[at + len(part) - 1]
        for k in dict.fromkeys(owner[at : at + len(part) - 1]):
            if k != last:
                units[k].append(PARTIAL)
        units[last].append(_unit(ch, part))
        at += len(part)
    return tuple(_shown(u, None) for u in units)  # drawn whole: a text, not a label (a token's bytes are few)
