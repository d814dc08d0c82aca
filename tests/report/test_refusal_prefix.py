"""Issue 44: one refusal prefix everywhere. Whichever door refuses (the single-head scenario door, the
multi-head one, the parser of any subcommand, the core), stderr is one line starting `attn-tui: `,
the prefix said once, and the exit is 2."""

from __future__ import annotations

import contextlib
import io

import pytest

from attn_tui.cli import main
from attn_tui.cli.errors import PREFIX, refusal

MISSING = "/no/such/folder/x"

CASES = [
    ["--scenario", MISSING + ".toml"],  # the explorer's single-head door
    ["report", "--scenario", MISSING + ".toml"],
    ["report", "--json", "--scenario", MISSING + ".npz"],
    ["report", "--scenario", "lesson-pipeline", "--layer", "0", "--head", "0"],
    ["heads", MISSING + ".npz"],
    ["heads", "induction-demo", "--layer", "9"],
    ["--tokens", "q w"],
    ["train", "--steps", "x"],
    ["serve", "--port", "99999"],
    ["report", "--no-such-option"],
    ["no-such-command"],
]


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_every_refusal_starts_with_the_one_prefix(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    line = err.getvalue()
    assert code == 2 and out.getvalue() == "" and line.count("\n") == 1, (argv, line)
    assert line.startswith(PREFIX) and not line[len(PREFIX) :].startswith("attn-tui"), line


def test_the_prefix_is_said_once():
    assert refusal(ValueError("attn-tui: x")) == refusal(ValueError("x")) == "attn-tui: x"
    assert refusal(ValueError("first\nsecond")) == "attn-tui: first"
    assert refusal(ValueError("")) == "attn-tui: ValueError"
