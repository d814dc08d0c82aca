"""The one parser of typed numbers: every number field (dimensions, go-to, window, random form,
experiments, training controls, ``train`` options) and the cell editor read text through it.

Only ASCII is accepted: Python's int() and float() also take other scripts' digits (``١`` is 1,
``１２`` is 12, ``²`` passes str.isdigit() and then int() raises), underscores (``1_000``) and
Unicode spaces, so a learner could see a number they did not type. The text is bounded in length
before it is converted (int() of 5000 digits raises; of 4000 it takes time). Every refusal is one
line naming the field (``where``) and the text, raised as ``error`` (the caller door's class).
"""

from __future__ import annotations

import math
import re
import string

from .limits import shown

MAX_NUMBER_CHARS = 32  # repr() of any float64 is at most 24 characters
_INT = re.compile(r"[+-]?[0-9]+")
_DIGITS = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WORDS = {"nan": "NaN", "inf": "infinite", "infinity": "infinite"}


def _clean(text: str) -> str:
    """``text`` without surrounding ASCII whitespace (str.strip() would also drop \\x1c-\\x1f)."""
    return str(text).strip(string.whitespace)


def _ascii_hint(raw: str) -> str:
    return " (digits 0-9 only)" if not raw.isascii() else ""


def whole_digits(text: str) -> bool:
    """True when ``text`` is ASCII digits 0-9 only, at most MAX_NUMBER_CHARS of them: what a position
    (``--query 12``, a head's "1.3") may be. str.isdigit() takes ``١``, ``１２`` and ``²``, and int()
    reads the first two as 1 and 12, raises on the third and on 5,000 digits."""
    return len(text) <= MAX_NUMBER_CHARS and _DIGITS.fullmatch(text) is not None


def digits_hint(text: str) -> str:
    """ " (digits 0-9 only)" when ``text`` holds a character outside ASCII, else ""."""
    return _ascii_hint(text)


def parse_int(
    text: str, where: str, lo: int | None = None, hi: int | None = None, error: type[Exception] = ValueError
) -> int:
    """The whole number in ``text`` from ``lo`` to ``hi``: ASCII digits with an optional sign.
    Without ``lo`` and ``hi`` the caller checks the range (train's Config says its own).

    >>> parse_int(" 12 ", "d_k", 1, 512)
    12
    """
    raw = _clean(text)
    ranged = lo is not None and hi is not None
    span = f" from {lo:,} to {hi:,}" if ranged else " in digits 0-9"
    if not raw:
        raise error(f"{where}: empty; type a whole number{span}")
    if not _INT.fullmatch(raw):
        tail = f"{_ascii_hint(raw)}; type one{span}" if ranged else " (digits 0-9 only)"
        raise error(f"{where}: {shown(raw)} is not a whole number{tail}")
    if len(raw) > MAX_NUMBER_CHARS:
        raise error(f"{where}: a number of {len(raw)} characters is too long; type a whole number{span}")
    v = int(raw)
    if lo is not None and hi is not None and not lo <= v <= hi:  # ranged
        raise error(f"{where}: {v} must be a whole number{span}")
    return v


def parse_float(text: str, where: str, error: type[Exception] = ValueError, example: str = "2, -0.5 or 1e-3") -> float:
    """The finite float in ``text``, written in ASCII: ``2``, ``-0.5``, ``.5``, ``1e-3``, ``+3``.

    Refuses empty text, ``nan``, ``inf``, ``1e400`` (infinite in float64), ``1_000`` and
    non-ASCII digits. -0.0 comes back as 0.0.

    >>> parse_float("1e-3", "lr")
    0.001
    """
    raw = _clean(text)
    if not raw:
        raise error(f"{where}: empty; type a number such as {example}")
    word = _WORDS.get(raw.lstrip("+-").lower())
    if word == "NaN":
        raise error(f"{where}: NaN is not allowed; entries must be finite numbers")
    if word or (_FLOAT.fullmatch(raw) and len(raw) <= MAX_NUMBER_CHARS and math.isinf(float(raw))):
        raise error(f"{where}: {shown(raw)} is infinite (beyond float64); entries must be finite")
    if not _FLOAT.fullmatch(raw):
        raise error(f"{where}: {shown(raw)} is not a number{_ascii_hint(raw)}; try e.g. {example}")
    if len(raw) > MAX_NUMBER_CHARS:
        raise error(f"{where}: {len(raw)} characters; a number here has at most {MAX_NUMBER_CHARS}")
    if underflows(raw):
        raise error(f"{where}: {shown(raw)}: {UNDERFLOW}; type 0 for zero")
    return float(raw) + 0.0


TINIEST = 5e-324  # the smallest positive float64 (a subnormal); float() reads what is nearer 0 than half of it as 0
UNDERFLOW = f"float64 would read it as 0 (its smallest number is {TINIEST:.1e})"


def underflows(literal: str) -> bool:
    """Whether ``literal`` (float syntax, underscores allowed) has a nonzero digit and float64 reads it
    as 0 (``1e-400``): the number typed would silently become another one."""
    mantissa = literal.lower().split("e")[0]
    return any(ch in "123456789" for ch in mantissa) and float(literal) == 0.0
