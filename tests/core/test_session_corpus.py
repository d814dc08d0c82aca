"""Issue 52's done-when, the kept session's door: every bad scenario text of the corpus (tests/core/badfiles.py)
held by a kept session as its scenario, its pin or an undo step. The launch reads the folder (session_store.newest),
skips the file with one line naming it, and holds no more memory than it does for the same text as a
scenario file. Past the state file's name and which of its scenarios it is, the line is word for word the
`--scenario` door's (scenario_io.resolve)."""

from __future__ import annotations

import tracemalloc

import pytest

from attn_tui.core import session_store as store
from attn_tui.core.builtins import builtin
from attn_tui.core.limits import printable
from attn_tui.core.scenario_io import ScenarioError, dumps, resolve
from attn_tui.core.scenario_write import toml_str
from attn_tui.core.session_toml import FORMAT, KIND
from tests.core.badfiles import TEXTS
from tests.peak_rss import BUDGET, MIB

WHERE = ("scenario", "pin", "past")  # the state file's keys a scenario text is read from


def holding(text: str, where: str) -> str:
    """A kept session's file whose ``where`` is ``text`` (a TOML basic string), the rest valid: the header the
    explorer writes and lesson-pipeline as the other scenarios (``past`` a list of one)."""
    good = toml_str(dumps(builtin("lesson-pipeline")))
    head = [f"format = {FORMAT}", f"kind = {toml_str(KIND)}", "saved = 1.0", 'why = "quit"', "row = 0", "pin_row = 0"]
    body = {"scenario": good, "pin": good, "past": f"[{good}]"}
    body[where] = toml_str(text) if where != "past" else f"[{toml_str(text)}]"
    return "\n".join(head + [f"{key} = {value}" for key, value in body.items()]) + "\n"


def _door_line(path) -> str:
    try:
        resolve(str(path))
    except ScenarioError as exc:
        return str(exc)
    raise AssertionError(f"{path}: opened")


def _session_line(folder, text: str) -> tuple[list, int, object]:
    path = store.write(folder, store.Kept(scenario=builtin("lesson-pipeline")))
    path.write_text(text, encoding="utf-8")
    tracemalloc.start()
    try:
        kept, _, problems = store.newest(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    path.unlink()
    return problems, peak, kept


def test_a_valid_session_so_built_is_read():
    k = store.loads(holding(dumps(builtin("box-kernel")), "scenario"))
    assert k.scenario.title == builtin("box-kernel").title and len(k.past) == 1 and k.pin is not None


@pytest.fixture(scope="module")
def door_lines(tmp_path_factory) -> list[tuple[str, str]]:
    """(the scenario file's name, its refusal at the `--scenario` door) for each text of the corpus."""
    folder, out = tmp_path_factory.mktemp("texts"), []
    for i, (_name, _cls, text, _words) in enumerate(TEXTS):
        scenario_file = folder / f"t{i:03d}.toml"
        scenario_file.write_text(text, encoding="utf-8")
        out.append((printable(scenario_file), _door_line(scenario_file)))
    return out


LONG = pytest.mark.long  # tracemalloc on the corpus's bombs: about a minute a position here (docs/TESTING.md)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["scenario", pytest.param("pin", marks=LONG), pytest.param("past", marks=LONG)])
def test_every_bad_scenario_text_in_a_kept_session_is_its_doors_line(tmp_path, door_lines, where):
    folder = tmp_path / "attn-tui"
    failures = []
    for (name, _cls, text, _words), (scenario_file, door) in zip(TEXTS, door_lines, strict=True):
        problems, peak, kept = _session_line(folder, holding(text, where))
        if kept is not None or len(problems) != 1 or peak > BUDGET:
            failures.append((name, problems, kept, peak / MIB))
            continue
        line, what = problems[0], f"{where} step 1" if where == "past" else where
        said = door.removeprefix(scenario_file)
        if not line.endswith(said) or not line.startswith(f"{folder}/session-") or f" ({what})" not in line:
            failures.append((name, line[:200], door[:200]))
    assert not failures, failures
