"""`report --help` and `serve --help` name every multi-head built-in (issue 51: induction-demo was missing),
and cli/args.py's written-out list is core.heads.demo.HEAD_BUILTINS (the parser does not import core.heads)."""

from __future__ import annotations

import re

import pytest

from attn_tui.cli.args import HEAD_NAMES
from attn_tui.cli.parser import build_parser
from attn_tui.core.heads.demo import HEAD_BUILTINS


def test_the_written_out_names_are_the_built_in_models():
    assert tuple(HEAD_BUILTINS) == HEAD_NAMES


@pytest.mark.parametrize("command", ["report", "serve"])
def test_help_names_every_multi_head_built_in(command, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    out = re.sub(r"- (?=[a-z])", "-", out)  # argparse wraps at a hyphen: "multi- head"
    for name in HEAD_BUILTINS:
        assert name in out, (command, name)
    assert "multi-head file" in out
