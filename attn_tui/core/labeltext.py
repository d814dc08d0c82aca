"""Label and title text shared by every door (a file, the editor, the forms) and every place that
shortens a label: which characters a label may not hold, whether it shows anything at all,
and where it may be cut without changing what it shows.

* Format characters (Unicode category Cf) are refused: the bidi controls (U+202A-U+202E,
  U+2066-U+2069, U+200E, U+200F, U+061C) turn `report`'s lines and the grids' columns around,
  and zero-width ones (U+200B, U+2060, U+FEFF, tags) hide text. ZWNJ and ZWJ (U+200C, U+200D)
  stay: scripts and emoji sequences (a family, a flag with a rainbow) need them.
* A label must show something: not only combining marks, joiners, variation selectors or the
  letters that draw nothing (Hangul fillers, the braille blank).
* A label is cut between grapheme clusters, never inside one: not before a combining mark, a
  variation selector, a skin-tone modifier, a tag or ZWJ, not after ZWJ, and not inside a flag's
  pair of regional indicators (cutting 👩‍💻 after 👩 showed another emoji).
* A sequence whose labels repeat shows each with its position, as the lesson writes its tokens
  (`t4 it`, counted from 1): ``positioned``. A label cut to fit keeps that position
  (`t118 tokeniz…`): ``fit``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: the only format characters a label may hold
ZWJ = "\u200d"
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u2061\u2062\u2063\u2064")  # draw nothing
NOT_SHOWN = ("Mn", "Me", "Cf", "Zs", "Zl", "Zp", "Cc")


def bad_format_char(text: str) -> str | None:
    """The first format character (category Cf) other than ZWNJ and ZWJ in ``text``, or None."""
    return next((ch for ch in text if unicodedata.category(ch) == "Cf" and ch not in JOINERS), None)


LINE_BREAKS = frozenset("\u2028\u2029")  # LINE and PARAGRAPH SEPARATOR: a terminal or a log may break there


def stored_problem(text: str, most: int) -> str | None:
    """Why ``text``, a label kept exactly as stored (a multi-head file's: a captured token's leading
    space is part of it, and it is shown and printed as written), cannot be, judged on that very text;
    None when it can. A control character of any kind (CR, LF, tab, VT, FF, FS-US, NEL: the whitespace
    a door's cleaning collapses is still in the stored text, and printed it starts new lines), a line or
    paragraph separator, a lone surrogate (no terminal or UTF-8 file can hold one), more than ``most``
    characters (spaces count: "a" + 100,000 spaces + "b" is not a short label)."""
    bad = next((ch for ch in text if unicodedata.category(ch) in ("Cc", "Cs") or ch in LINE_BREAKS), None)
    if bad is not None:
        what = "a lone surrogate" if unicodedata.category(bad) == "Cs" else "the control character"
        return f"contains {what} {describe(bad)}"
    if len(text) > most:
        return f"has {len(text):,} characters as stored (spaces count); at most {most}"
    return None


def not_utf8(text: str) -> str | None:
    """Where ``text`` holds what no UTF-8 text can: a byte of an argument or file that was not UTF-8
    (Python keeps it as a lone surrogate, U+DC80..U+DCFF) or another lone surrogate, as "byte 0xFF at
    character 3"; None for a text a tokenizer can read."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            what = f"byte 0x{ord(ch) - 0xDC00:02X}" if "\udc80" <= ch <= "\udcff" else f"U+{ord(ch):04X}"
            return f"{what} at character {i + 1}"
    return None


def describe(ch: str) -> str:
    """ "U+202E (RIGHT-TO-LEFT OVERRIDE)": a character that cannot be shown, by its code and name."""
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def shows_something(text: str) -> bool:
    """True if ``text`` has a character that draws something on screen."""
    return any(ch not in BLANK and unicodedata.category(ch) not in NOT_SHOWN for ch in text)


def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _continues(text: str, i: int) -> bool:
    """True if a cut before text[i] would split a grapheme cluster (0 < i < len(text))."""
    ch, before = text[i], text[i - 1]
    if before == ZWJ or ch == ZWJ or unicodedata.category(ch) in ("Mn", "Me", "Mc"):
        return True  # joined, or a combining mark / variation selector (Mn)
    if "\U0001f3fb" <= ch <= "\U0001f3ff" or "\U000e0020" <= ch <= "\U000e007f":
        return True  # a skin-tone modifier, a tag (subdivision flags)
    if _regional(ch) and _regional(before):
        run = 0
        while i - run - 1 >= 0 and _regional(text[i - run - 1]):
            run += 1
        return run % 2 == 1  # inside a flag's pair
    return False


def cut(text: str, most: int) -> str:
    """The longest start of ``text`` of at most ``most`` code points that ends between grapheme
    clusters ("" if even the first cluster is longer)."""
    if len(text) <= most:
        return text
    i = max(most, 0)
    while 0 < i and _continues(text, i):
        i -= 1
    return text[:i]


def shortened(text: str, most: int) -> str:
    """``text`` in at most ``most`` characters, "…" at its end where it was cut (between graphemes)."""
    return text if len(text) <= most else cut(text, most - 1) + "…"


def last_cluster(text: str) -> str:
    """The last grapheme cluster of ``text`` (as cut() counts them)."""
    i = len(text) - 1
    while 0 < i and _continues(text, i):
        i -= 1
    return text[max(i, 0) :]


@lru_cache(maxsize=8)
def repeats(tokens: tuple[Any, ...]) -> bool:
    """True if a label of ``tokens`` comes twice, compared without surrounding whitespace (" the"
    and "the" read alike on screen). Cached per sequence (16,384 labels)."""
    seen: set[Any] = set()
    for tok in tokens:
        key = tok.strip()
        if key in seen:
            return True
        seen.add(key)
    return False


@lru_cache(maxsize=8)
def _numbered(tokens: tuple[Any, ...], prefix: str) -> tuple[Any, ...]:
    return tuple(f"{prefix}{i} {tok.strip() or tok}" for i, tok in enumerate(tokens, 1))  # "t1  The": one space


def positioned(tokens: Any, prefix: str = "t") -> tuple[str, ...]:
    """The labels a sequence shows: when any label repeats, every label with its position counted
    from 1, as the lesson writes its tokens ("q w q" -> "t1 q", "t2 w", "t3 q"; a captured " The"
    -> "t1 The", the explorer's label strips it too); else the labels
    as they are, the same tuple ("t1 mat" ... "t5 was" stay). ``prefix``: "t" for query tokens,
    "k" for keys of a sequence of their own. Files and JSON keep the raw tokens; this is only
    what is shown."""
    tokens = tuple(tokens)
    return _numbered(tokens, prefix) if repeats(tokens) else tokens


_POSITION = re.compile(r"[a-z]\d+ ")  # "t118 " at the start of a label


def fit(label: str, width: int) -> str:
    """``label`` in at most ``width`` code points, cut between grapheme clusters and ended by "…",
    keeping a leading position whole: fit("t118 tokenizer", 13) == "t118 tokeniz…". When the position
    and one more character do not fit, the position alone ("t118"); narrower still, "…" (a cut
    position, "t1…", would name another token)."""
    if len(label) <= width:
        return label
    m = _POSITION.match(label)
    if m is not None:
        pos = m.group()
        if width >= len(pos) + 2:
            return pos + cut(label[len(pos) :], width - len(pos) - 1) + "…"
        if width >= len(pos) - 1:
            return pos[:-1]
        return "…"[:width]
    return shortened(label, width) if width > 0 else ""


_SHOWN = {"Ġ": " ", "▁": " ", "Ċ": "\n", "ĉ": "\t", "č": "\r"}
_VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"}
TOKEN_LABEL_MAX = 24  # limits.MAX_LABEL: grids keep their columns


def token_label(raw: str) -> str:
    """A token's label on screen: byte-level markers as the whitespace they stand for (a leading
    space stays a space), a token of whitespace only as visible signs (␣ ↵ ⇥), control characters
    and newlines inside a token as signs, at most MAX_LABEL characters (… when cut)."""
    text = "".join(_SHOWN.get(ch, ch) for ch in str(raw))
    if not text.strip():
        text = "".join(_VISIBLE.get(ch, "␣") for ch in text) or "∅"
    else:
        text = "".join(_VISIBLE[ch] if ch in "\n\t\r" else ch for ch in text)
        text = "".join(ch if ch.isprintable() or ch == " " else "�" for ch in text)
    return text if len(text) <= TOKEN_LABEL_MAX else text[: TOKEN_LABEL_MAX - 1] + "…"
