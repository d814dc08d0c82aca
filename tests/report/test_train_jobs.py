"""`attn-tui train --compare --jobs N`: the runs in N processes print what one process prints;
a bad N is refused in one line, exit 2."""

from __future__ import annotations

import pytest

from attn_tui.cli import main


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra", [(), ("--seeds", "2"), ("--d-k", "8", "--json")])
def test_jobs_print_what_one_process_prints(capsys, extra):
    argv = ("train", "--compare", "--steps", "30", *extra)
    one = cli(capsys, *argv, "--jobs", "1")
    assert one[0] == 0 and one[2] == ""
    assert cli(capsys, *argv, "--jobs", "3") == one
    assert cli(capsys, *argv) == one  # the default: one process a CPU


@pytest.mark.parametrize(
    "argv, says",
    [
        (("--compare", "--jobs", "0"), "train --jobs: 0 must be a whole number from 1 to 64"),
        (("--compare", "--jobs", "65"), "train --jobs: 65 must be a whole number from 1 to 64"),
        (("--jobs", "2"), "train --jobs: only with --compare"),
        (("--compare", "--jobs", "two"), "argument --jobs: 'two' is not a whole number"),
    ],
)
def test_bad_jobs_are_refused_in_one_line(capsys, argv, says):
    code, out, err = cli(capsys, "train", *argv)
    assert code == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1, err
