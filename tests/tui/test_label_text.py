"""Issue 34, item 9: labels shortened between grapheme clusters (core.labeltext.cut) in the grids'
row labels, column headers and the status title; an emoji cut mid-cluster showed another emoji.
The rules themselves: tests/core/test_label_text_core.py."""

from __future__ import annotations

from attn_tui.tui.widgets.palette import abbrev, fit_label

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧: three people joined by ZWJ
CODER = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # 👩🏽‍💻: a woman, a skin tone, ZWJ, a laptop
FLAGS = "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea"  # 🇫🇷🇩🇪: two flags, four regional indicators
HEART = "\u2764\ufe0f"  # ❤️: a heart and its emoji variation selector
ACCENT = "e\u0301"  # é as e + a combining acute


def test_the_grids_labels_and_headers_are_cut_between_clusters():
    label = "t1 " + FAMILY + FAMILY
    assert fit_label(label, 5) == "t1 …"  # 👩 alone would be another person
    assert fit_label(label, 9) == "t1 " + FAMILY + "…"
    assert abbrev("ab" + FAMILY + "z", 4) == "abz"  # the last character kept, no half family
    assert abbrev("abcd" + CODER, 6) == "ab" + CODER  # the last cluster kept whole
    assert fit_label("t1 abcdefghijkl") == "t1 abcd…"  # ASCII as before


def test_the_status_title_is_cut_between_clusters():
    from types import SimpleNamespace

    from attn_tui.tui.widgets.status import status_text

    title = "abcdefghij" + FAMILY * 10
    text = status_text(SimpleNamespace(parts=(), title=title), 30).plain
    shown = text.split(" · ")[-1].strip().removesuffix("…")
    assert title.startswith(shown) and not shown.endswith("\u200d")
    assert len(shown) % 5 == 0  # 10 letters then whole families of 5 code points
