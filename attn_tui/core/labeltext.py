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
"""

from __future__ import annotations

import unicodedata

JOINERS = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: the only format characters a label may hold
ZWJ = "\u200d"
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u2061\u2062\u2063\u2064")  # draw nothing
NOT_SHOWN = ("Mn", "Me", "Cf", "Zs", "Zl", "Zp", "Cc")


def bad_format_char(text: str) -> str | None:
    """The first format character (category Cf) other than ZWNJ and ZWJ in ``text``, or None."""
    return next((ch for ch in text if unicodedata.category(ch) == "Cf" and ch not in JOINERS), None)


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


def last_cluster(text: str) -> str:
    """The last grapheme cluster of ``text`` (as cut() counts them)."""
    i = len(text) - 1
    while 0 < i and _continues(text, i):
        i -= 1
    return text[max(i, 0) :]
