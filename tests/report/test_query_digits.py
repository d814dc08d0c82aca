"""Issue 52 item 11: positions are ASCII digits, as docs/FILES.md says of every typed number.
`--query` took `١` and `１２` as 1 and 12 (str.isdigit, then int), and `²` or 5,000 digits leaked
Python's own messages (int() raises on both). The same check reads `--rollout --query`, the palette's
"go to L.H" (tests/tui/test_head_digits.py) and a file's "window:W" mask (core/numparse.whole_digits)."""

from __future__ import annotations

import pytest

from attn_tui import cli
from attn_tui.core.heads.multihead_settings import read_mask_kind

BAD = ["١", "１２", "²", "1" * 5000, "1_0", " 1 2"]


IDS = ["arabic-indic", "fullwidth", "superscript", "5000-digits", "underscore", "gap"]


@pytest.mark.parametrize("rollout", [False, True], ids=["query", "rollout-query"])
@pytest.mark.parametrize("bad", BAD, ids=IDS)
def test_a_position_not_in_ascii_digits_is_refused_in_one_line(capsys, bad, rollout):
    argv = ["heads", "induction-demo", *(["--rollout"] if rollout else []), "--query", bad]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert captured.out == "" and err.count("\n") == 1 and err.startswith("attn-tui: --query: "), err
    assert "Exceeds the limit" not in err and "invalid literal" not in err
    if not bad.isascii():
        assert "(digits 0-9 only)" in err


def test_an_ascii_position_still_reads(capsys):
    assert cli.main(["heads", "induction-demo", "--query", "12"]) == 0
    assert "where query t12 " in capsys.readouterr().out


def test_a_files_window_takes_ascii_digits_only():
    assert read_mask_kind("window:4", 0) == ("window", 4)
    with pytest.raises(ValueError, match="mask: layer 0"):
        read_mask_kind("window:４", 0)
