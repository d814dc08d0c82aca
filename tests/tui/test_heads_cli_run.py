"""`attn-tui --scenario induction-demo [--tokens ...]`: the explorer's door to a multi-head source;
bad tokens are refused with one line and exit 2 before any UI starts."""

from __future__ import annotations

import pytest

from attn_tui import cli
from attn_tui.cli import explorer


def test_load_run_opens_head_0_0_on_the_tokens():
    args = cli.build_parser().parse_args(["--scenario", "induction-demo", "--tokens", "q w e r q w e r"])
    scenario, head = explorer.opened(args)
    assert (head.layer, head.head, head.name) == (0, 0, "induction-demo")
    assert scenario.tokens == tuple("q w e r q w e r".split())
    assert head.source.T == 8


def test_load_run_single_head_has_no_head():
    args = cli.build_parser().parse_args(["--scenario", "box-kernel"])
    scenario, head = explorer.opened(args)
    assert head is None and scenario.T > 0


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--scenario", "induction-demo", "--tokens", "q w 7"], "'7'"),
        (["--scenario", "induction-demo", "--tokens", " ".join("a" * 33)], "32"),
        (["--tokens", "q w"], "--tokens goes with a multi-head built-in"),
        (["--scenario", "box-kernel", "--tokens", "q w"], "--tokens goes with"),
    ],
)
def test_bad_tokens_one_line_exit_2(argv, words, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
