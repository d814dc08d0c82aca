"""Issue 52's corpus: each hostile multi-head file its tests build goes through every headless door and
the explorer's door (`heads`, `heads --query`, `heads --rollout --query`, `report --layer/--head`,
`--scenario`, and cli.heads.open_first, what `--scenario` opens a heads file with), with the exit code,
the line and the traced peak memory of each compared. A file refused by one door is refused by every door
in the same line; a file one door reads, the others read (or refuse in their own words where a head's
Scenario cannot hold it: an explicit additive mask). Kept small: the long file has 2,048 tokens (the
16,384-token cases are in each item's own test). The files the explorer opens, with every screen opened
on them and kept as a session: tests/tui/test_hostile_screens*.py and test_hostile_kept_session.py."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from attn_tui import cli
from attn_tui.cli import heads as heads_cli
from attn_tui.core.heads.multihead_write import save_heads
from tests.core.badheads import sparse_heads
from tests.core.test_rollout_padded import padded_file

MIB = 2**20
BUDGET = 500 * MIB  # the issue's: no file under 1 MB takes more on any door
DOORS = {
    "heads": lambda p: ["heads", p],
    "query": lambda p: ["heads", p, "--query", "1"],
    "rollout": lambda p: ["heads", p, "--rollout", "--query", "1"],
    "report": lambda p: ["report", "--scenario", p, "--layer", "0", "--head", "0"],
    "scenario": lambda p: ["--scenario", p],  # the explorer's, refusing before any UI (a file it opens: tests/tui)
}
REFUSED = {  # label 2 -> the words every door says
    "control": ("q\n\nall heads OK\r", "tokens: label 2: contains the control character U+000A"),
    "surrogate": ("a\ud800b", "tokens: label 2: contains a lone surrogate U+D800"),
    "spaces": ("a" + " " * 100_000 + "b", "tokens: label 2: has 100,002 characters as stored"),
}


PADDED_LINE = (  # the one line of the doors that make the head a Scenario (it named no file before)
    "{path}: mask: layer 0 has an explicit additive mask that is not causal or none; "
    "`attn-tui heads` reads it, a single head takes causal, none or window"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("corpus")
    q = np.random.default_rng(0).standard_normal((2, 2, 3, 2))
    files = {
        name: save_heads(folder / f"{name}.safetensors", q, q, q, tokens=["x", label, "z"], mask="causal")
        for name, (label, _) in REFUSED.items()
    }
    files["long"] = sparse_heads(folder / "long.safetensors", L=1, H=2, T=2048)
    files["padded"] = padded_file(folder / "padded.safetensors")[0]
    return {k: str(v) for k, v in files.items()}


def _door(capsys, argv) -> tuple[int, str, int]:
    capsys.readouterr()
    tracemalloc.start()
    try:
        code = cli.main(argv)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return code, capsys.readouterr().err, peak


def _explorer(path) -> str | None:
    try:
        heads_cli.open_first(path, None)
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", REFUSED)
def test_a_refused_file_is_the_same_line_on_every_door(corpus, capsys, name):
    path, words = corpus[name], REFUSED[name][1]
    lines = set()
    for door, argv in DOORS.items():
        code, err, peak = _door(capsys, argv(path))
        assert code == 2 and err.count("\n") == 1 and words in err, (door, err)
        assert peak < BUDGET, (door, peak / MIB)
        lines.add(err.strip())
    lines.add(f"attn-tui: {_explorer(path)}")
    assert len(lines) == 1, lines


@pytest.mark.parametrize("name", ["long", "padded"])
def test_a_readable_file_is_read_by_every_door(corpus, capsys, name):
    path = corpus[name]
    for door, argv in DOORS.items():
        if door == "scenario":  # opened: every screen on it is tests/tui/test_hostile_screens.py's
            continue
        code, err, peak = _door(capsys, argv(path))
        assert peak < BUDGET, (door, peak / MIB)
        if name == "padded" and door == "report":  # a head's Scenario holds causal or no mask, not this M
            assert code == 2 and err == f"attn-tui: {PADDED_LINE.format(path=path)}\n", err  # naming the file
            continue
        assert code == 0, (door, err)
    why = _explorer(path)
    assert why is None if name == "long" else why == PADDED_LINE.format(path=path), why
