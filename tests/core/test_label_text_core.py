"""Issue 34, item 9: label text shared by every door. Bidi controls and other format characters
are refused (report printed U+202E raw), a label must show something (zero-width labels were
blank rows), and labels are shortened between grapheme clusters (an emoji cut mid-cluster
showed a different emoji); the grids and the status title: tests/tui/test_label_text.py."""

from __future__ import annotations

import pytest

from attn_tui.core import labeltext
from attn_tui.core.limits import clean_label

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧: three people joined by ZWJ
CODER = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # 👩🏽‍💻: a woman, a skin tone, ZWJ, a laptop
FLAGS = "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea"  # 🇫🇷🇩🇪: two flags, four regional indicators
HEART = "\u2764\ufe0f"  # ❤️: a heart and its emoji variation selector
ACCENT = "e\u0301"  # é as e + a combining acute


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("abc\u202egpj.exe", "contains the format character U+202E (RIGHT-TO-LEFT OVERRIDE); labels are plain text"),
        ("a\u2067b", "U+2067 (RIGHT-TO-LEFT ISOLATE)"),
        ("a\u200fb", "U+200F (RIGHT-TO-LEFT MARK)"),
        ("\u200b\u200b", "U+200B (ZERO WIDTH SPACE)"),
        ("a\ufeff", "U+FEFF"),
        ("a\U000e0041", "U+E0041 (TAG LATIN CAPITAL LETTER A)"),
        ("\u0301\u0301", "has no visible character"),
        ("\u3164", "has no visible character"),
        ("\u200d\u200d", "has no visible character"),
        ("\ufe0f", "has no visible character"),
    ],
)
def test_format_characters_and_invisible_labels_are_refused(label, words):
    with pytest.raises(ValueError) as err:
        clean_label(label, "tokens: label 1")
    assert str(err.value).startswith("tokens: label 1: ") and words in str(err.value)


@pytest.mark.parametrize("label", [FAMILY, CODER, FLAGS, HEART, ACCENT, "نمی\u200cخواهم", "t1 cat"])
def test_emoji_sequences_joiners_and_accents_stay(label):
    assert clean_label(label, "tokens: label 1") == label


def test_a_title_with_a_bidi_override_is_refused_too():
    with pytest.raises(ValueError, match=r"^title: contains the format character U\+202E"):
        clean_label("x\u202ey", "title", kind="title", limit=200)


@pytest.mark.parametrize(
    ("text", "most", "cut"),
    [
        ("ab" + FAMILY, 3, "ab"),  # never 👩 alone, another emoji
        ("ab" + FAMILY, 4, "ab"),
        ("ab" + FAMILY, 7, "ab" + FAMILY),
        ("a" + CODER, 2, "a"),  # never 👩 without her skin tone
        ("a" + CODER, 3, "a"),  # never 👩🏽 without the laptop
        (FLAGS, 3, "\U0001f1eb\U0001f1f7"),  # never 🇫🇷 then half of 🇩🇪
        ("x" + FLAGS, 2, "x"),
        ("x" + FLAGS, 4, "x" + FLAGS[:2]),
        ("ab" + HEART, 3, "ab"),
        ("caf" + ACCENT + "s", 4, "caf"),
        ("plain text", 5, "plain"),
    ],
)
def test_cut_is_between_grapheme_clusters(text, most, cut):
    assert labeltext.cut(text, most) == cut
