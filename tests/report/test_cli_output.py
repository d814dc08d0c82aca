"""Issue 34 item 5: output that does not finish says so. `report --json > file` on a full disk wrote
64 KiB and exited 0; `> /dev/full`, a closed pipe and a closed stdout ended in tracebacks. Now: one
line on stderr, exit 1 (attn_tui/cli/output.py), for report, train, --help and --version alike."""

import errno
import io
import os
import subprocess
import sys

import pytest

from attn_tui import cli
from attn_tui.cli import output

COMMANDS = [
    ["report", "--json"],
    ["report"],
    ["train", "--steps", "2"],
    ["--version"],
    ["--help"],
    ["report", "--help"],
    ["heads", "induction-demo"],  # a bare sys.stdout.write: a traceback, or AttributeError on a closed stdout
]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def attn(args, **kw):
    code = f"import sys\nfrom attn_tui.cli import main\nsys.exit(main({args!r}))"
    return subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, timeout=120, env=ENV, **kw)


def one_line_and_failed(res, words):
    lines = res.stderr.splitlines()
    assert res.returncode == output.EXIT_OUTPUT, res.stderr
    assert len(lines) == 1 and lines[0].startswith("attn-tui: output incomplete: ") and words in lines[0], lines


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_dev_full(args):
    with open("/dev/full", "w") as full:
        one_line_and_failed(attn(args, stdout=full), "No space left on device")


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_closed_pipe(args):
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write: EPIPE, deterministically
    try:
        res = attn(args, stdout=w)
    finally:
        os.close(w)
    one_line_and_failed(res, "closed pipe")


@pytest.mark.parametrize(
    "args", [["report", "--json"], ["--version"], ["heads", "induction-demo", "--json"]], ids=" ".join
)
def test_a_closed_stdout(args):
    one_line_and_failed(attn(args, stdout=None, preexec_fn=lambda: os.close(1)), "standard output is closed")


def test_a_full_disk_after_4_kib_is_not_a_finished_report(monkeypatch, tmp_path, capsys):
    """A file system that takes 4 KiB and then refuses (ENOSPC): the short write is not success."""
    calls = []

    def write(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return min(len(data), 4096)

    monkeypatch.setattr(output.os, "write", write)
    with open(tmp_path / "out.json", "w") as f:
        monkeypatch.setattr(sys, "stdout", f)
        assert cli.main(["report", "--json"]) == output.EXIT_OUTPUT
    assert calls[0] > 4096 and capsys.readouterr().err == "attn-tui: output incomplete: No space left on device\n"


def test_short_writes_are_resumed_until_every_byte_is_out(monkeypatch, tmp_path):
    real = os.write
    monkeypatch.setattr(output.os, "write", lambda fd, data: real(fd, bytes(data[:1000])))
    with open(tmp_path / "out.json", "w") as f:
        monkeypatch.setattr(sys, "stdout", f)
        assert cli.main(["report", "--json"]) == 0
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buf)
    assert cli.main(["report", "--json"]) == 0
    assert (tmp_path / "out.json").read_text() == buf.getvalue() and len(buf.getvalue()) > 1000


def test_a_write_of_zero_bytes_is_a_failure_not_a_loop(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(output.os, "write", lambda fd, data: 0)
    with open(tmp_path / "out.txt", "w") as f:
        monkeypatch.setattr(sys, "stdout", f)
        assert cli.main(["--version"]) == output.EXIT_OUTPUT
    assert capsys.readouterr().err.count("\n") == 1


def _code(args):
    return f"import sys\nfrom attn_tui.cli import main\nsys.exit(main({args!r}))"


@pytest.mark.parametrize(
    "args",
    [["report", "--bogus"], ["report", "--scenario", "no-such"], ["heads", "induction-demo", "--layer", "9"]],
    ids=" ".join,
)
def test_bad_input_is_exit_2_when_stderr_is_full_or_closed(args):
    """The one line could not be written (2>/dev/full: print raised and the exit was 1 with a
    traceback) or had nowhere to go (2>&-: print(file=None) wrote it into stdout, the data)."""
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-c", _code(args)], stdout=subprocess.PIPE, stderr=full, env=ENV,
                             timeout=120)  # fmt: skip
    assert res.returncode == 2 and res.stdout == b""
    res = subprocess.run([sys.executable, "-c", _code(args)], stdout=subprocess.PIPE, env=ENV, timeout=120,
                         preexec_fn=lambda: os.close(2))  # fmt: skip
    assert res.returncode == 2 and res.stdout == b""


def test_a_large_report_with_stderr_closed_is_written(tmp_path):
    """sys.stderr is None under 2>&-: the large summary asked it .isatty() and crashed (exit 1, no output)."""
    import numpy as np

    rng = np.random.default_rng(0)
    f = tmp_path / "big.npz"
    np.savez(f, Q=rng.standard_normal((600, 4)), K=rng.standard_normal((600, 4)), V=rng.standard_normal((600, 4)))
    res = subprocess.run([sys.executable, "-c", _code(["report", "--scenario", str(f)])], stdout=subprocess.PIPE,
                         env=ENV, timeout=120, preexec_fn=lambda: os.close(2))  # fmt: skip
    assert res.returncode == 0 and b"Summary: 600 tokens" in res.stdout
