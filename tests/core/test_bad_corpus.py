"""Issue 10: the generated bad-input corpus (tests/core/badfiles.py) through every door but
the app's (tests/tui/test_open_hostile.py): the core's resolve, `attn-tui report --scenario F`
and `attn-tui --scenario F`. Each is refused with one line naming the file, exit 2, no
traceback, no NumPy RuntimeWarning, nothing that blocks, and no UI library imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attn_tui.core.limits import printable
from tests.core.badfiles import CLASSES, run_driver, write_corpus

# Runs, in one subprocess (so that a regression that blocks on a FIFO times out instead of
# hanging the suite), for every file: the core's resolve and load, then cli.main for
# `report --scenario F`, `--scenario F` and `report --json --scenario F`. Prints one JSON object.
DRIVER = r"""
import contextlib, io, json, pathlib, sys, warnings
from attn_tui.core.scenario_io import ScenarioError, load, resolve
from attn_tui.cli import main


def core(fn, f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(f)
            rc, err = 0, ""
        except ScenarioError as exc:
            rc, err = 2, str(exc)
        except BaseException as exc:
            rc, err = 1, f"{type(exc).__name__}: {exc}"
    return rc, err + "".join(f"\\nWarning: {w.message}" for w in caught)


class AttentionApp:  # a stand-in: a file that gets as far as the UI is a failure, not a hang
    def __init__(self, scenario=None):
        print("UI started", file=sys.stderr)

    def run(self):
        pass


sys.modules["attn_tui.tui.app"] = type(sys)("attn_tui.tui.app")
sys.modules["attn_tui.tui.app"].AttentionApp = AttentionApp
warnings.simplefilter("always")
out = []
for f in json.loads(pathlib.Path(sys.argv[1]).read_text()):
    for fn in (resolve, load):
        rc, err = core(fn, f)
        out.append({"file": f, "door": fn.__name__, "rc": rc, "out": "", "err": err})
    for argv in (["report", "--scenario", f], ["--scenario", f], ["report", "--json", "--scenario", f]):
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            rc = main(argv)
        out.append({"file": f, "door": " ".join(argv[:-1]), "rc": rc, "out": o.getvalue(), "err": e.getvalue()})
print(json.dumps({"results": out, "ui": sorted(m for m in ("textual", "rich", "attn_tui.tui") if m in sys.modules)}))
"""
DOORS = ("resolve", "report --scenario", "--scenario", "report --json --scenario")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("bad"))


@pytest.fixture(scope="module")
def outcomes(corpus, tmp_path_factory):
    return run_driver(DRIVER, [c.path for c in corpus], tmp_path_factory.mktemp("listing"))


def check_line(msg: str, case, prefix: str = "attn-tui: ") -> list[str]:
    """What is wrong with the refusal ``msg`` of ``case`` (empty when it is right): a command's starts
    with the one prefix every door says (issue 44), then the file's name; resolve's ValueError has no prefix."""
    problems = []
    if "\n" in msg.strip() or "Traceback" in msg or "Warning" in msg:
        problems.append("not one line")
    if not msg.strip().startswith(prefix + printable(case.path)):
        problems.append(f"does not start with {prefix!r} and the file's name")
    if "\x1b" in msg or "\x07" in msg:
        problems.append("raw control character")
    problems += [f"missing {w!r}" for w in case.words if w not in msg]
    return problems


def test_corpus_is_big_and_covers_every_class(corpus):
    assert len(corpus) >= 80
    counts = {cls: sum(c.cls == cls for c in corpus) for cls in CLASSES}
    assert all(counts.values()), counts
    assert {c.cls for c in corpus} <= set(CLASSES)


@pytest.mark.parametrize("door", DOORS)
def test_every_door_refuses_every_file_with_one_line_and_exit_2(corpus, outcomes, door):
    by_file = {str(c.path): c for c in corpus}
    results = [r for r in outcomes["results"] if r["door"] == door]
    assert len(results) == len(corpus)
    failures = []
    for r in results:
        case = by_file[r["file"]]
        problems = check_line(r["err"], case, "" if door == "resolve" else "attn-tui: ")
        if r["rc"] != 2 or r["out"]:
            problems.append(f"exit {r['rc']}, stdout {r['out'][:40]!r}")
        if problems:
            failures.append((case.name, problems, r["err"][:200]))
    assert not failures


def test_no_ui_library_is_imported_to_refuse(outcomes):
    assert outcomes["ui"] == []  # `attn-tui --scenario F` refused before importing textual


def test_load_raises_nothing_but_scenario_error(outcomes):
    """The parser alone (used to check a save) may accept what the limits refuse, but never
    crashes, hangs or allocates: every outcome is a Scenario or a ScenarioError."""
    bad = [(r["file"], r["err"]) for r in outcomes["results"] if r["door"] == "load" and r["rc"] == 1]
    assert not bad


SAMPLE = (
    "FIFO",
    "symlink to /dev/zero",
    "nesting 5000",
    "huge int cell",
    "T = 100000",
    "f16 Q given",
    "name of 300 characters",
    "ESC and newline in the file name",
    "c 10**400",
    "window 10**30",
)


@pytest.mark.parametrize("command", [["report", "--scenario"], ["--scenario"]])
def test_the_real_command_on_a_sample(corpus, command):
    """The installed entry point itself (python -m attn_tui), for the classes that crashed or hung."""
    cases = [c for c in corpus if c.name in SAMPLE]
    assert len(cases) == len(SAMPLE)
    for case in cases:
        res = subprocess.run(
            [sys.executable, "-m", "attn_tui", *command, str(case.path)],
            capture_output=True,
            check=False,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert res.returncode == 2 and res.stdout == "", (case.name, res)
        assert not check_line(res.stderr, case), (case.name, res.stderr)
