"""The token view's legend names the query's mark the widget draws (issue 51): "[ ]" around a token of
text with spaces, only an underline in a captured text whose tokens join with no room for brackets."""

from __future__ import annotations

from attn_tui.tui.views.token_view import legend


def test_the_legend_names_the_mark_the_text_has():
    spaced, joined = legend(False), legend(False, joined=True)
    assert "[ ] the query" in spaced and "underlined" not in spaced
    assert "underlined: the query" in joined and "[" not in joined
    assert "underlined: the query" in legend(True, joined=True)  # NO_COLOR: glyphs, the same mark
    assert "italics" in joined and "italics" not in spaced and "italics" not in legend(True, joined=True)


def test_the_heads_screens_tokens_line_says_where_it_is_cut():
    """Issue 51: the heads screen's `tokens:` line ran off the header with no mark; cut, it ends in "…"."""
    from rich.cells import cell_len

    from attn_tui.core.heads import open_heads
    from attn_tui.tui.views.heads_view import tokens_line

    src = open_heads("induction-demo")
    whole = tokens_line(src)
    assert tokens_line(src, len(whole) + 5) == whole and not whole.endswith("…")
    cut = tokens_line(src, 40)
    assert cell_len(cut) <= 40 and cut.endswith("…") and whole.startswith(cut[:-1].rstrip())
