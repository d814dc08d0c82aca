"""The hostile corpus through the multi-head doors: the multi-head files of badheads.py (a Q of
[L, H, T, d] with a list dtype, names given twice, encrypted and method-99 members, a zip
directory of 50,000 entries, a kv_head past H_kv, per-layer settings for the wrong layer count,
tokens that inflate to 10^8 entries, NaN entries) and issue 34's single-head array files
(badarrays.ARRAYS), each through `attn-tui heads F`, `heads --json F`, `report --scenario F
--layer 0 --head 0`, `report --scenario F`, `--scenario F` (the app, stubbed) and the core's
resolve: refused with one line naming the file, exit 2, no traceback, nothing on stdout, with
the memory each door allocates bounded (tracemalloc's peak, never time). And the backstop:
an exception no check foresaw, anywhere in the multi-head door, is one line naming the file. The header checks are
the single-head doors' own (arrays_io, npz_members), so a header refusal has the same words at
every door."""

from __future__ import annotations

import sys

import pytest

from attn_tui.core.limits import printable
from tests.core.badarrays import ARRAYS
from tests.core.badfiles import run_driver
from tests.core.badheads import HeadCase, members, qkv, write_heads

DRIVER = r"""
import contextlib, io, json, pathlib, sys, tracemalloc, warnings
from attn_tui.cli import main
from attn_tui.core.scenario_io import ScenarioError, resolve


class AttentionApp:  # a stand-in: a file that gets as far as the UI is a failure, not a hang
    def __init__(self, *args, **kwargs):
        print("UI started", file=sys.stderr)

    def run(self):
        pass


sys.modules["attn_tui.tui.app"] = type(sys)("attn_tui.tui.app")
sys.modules["attn_tui.tui.app"].AttentionApp = AttentionApp
# imported before counting: the modules' own memory is not the door's
import attn_tui.core.heads.door, attn_tui.cli.heads, attn_tui.report.heads_text, attn_tui.report.text
import attn_tui.report.as_json, safetensors.numpy, threadpoolctl, traceback


def core(f):
    try:
        resolve(f, large=True)
        return 0, ""
    except ScenarioError as exc:
        return 2, str(exc)
    except BaseException as exc:
        return 1, f"{type(exc).__name__}: {exc}"


DOORS = {
    "heads": lambda f: ["heads", f],
    "heads --json": lambda f: ["heads", "--json", f],
    "report --layer 0 --head 0": lambda f: ["report", "--scenario", f, "--layer", "0", "--head", "0"],
    "report": lambda f: ["report", "--scenario", f],
    "--scenario": lambda f: ["--scenario", f],
}
def one(door, f, o, e):
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            return core(f) if door == "resolve" else (main(DOORS[door](f)), None)
        except BaseException:  # a traceback is a failure of this file at this door, not of the run
            return 1, traceback.format_exc()


out = []
for f in json.loads(pathlib.Path(sys.argv[1]).read_text()):
    for door in ("resolve", *DOORS):
        o, e = io.StringIO(), io.StringIO()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tracemalloc.start()
            try:
                rc, err = one(door, f, o, e)
            finally:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        err = e.getvalue() if err is None else err
        err += "".join(f"\nWarning: {w.message}" for w in caught)
        out.append({"file": f, "door": door, "rc": rc, "out": o.getvalue(), "err": err, "peak": peak})
print(json.dumps(out))
"""
HEADS_DOORS = ("heads", "heads --json", "report --layer 0 --head 0")
DOORS = ("resolve", *HEADS_DOORS, "report", "--scenario")
SHARED = {  # issue 34's files refused by the shared header checks: the same words at the multi-head doors
    name
    for name, cls, _, _, _ in ARRAYS
    if cls in ("zip entries", "safetensors header") or name.startswith(("npz member longer", "npz .npy header"))
} | {
    "npz 2**40 labels",
    "npz tokens inflate to 10**7",
    "npz title of 5 M characters",
    "npz labels 1000 characters wide",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list[HeadCase]:
    folder = tmp_path_factory.mktemp("heads")
    out = write_heads(folder)
    for i, (name, _, suffix, raw, words) in enumerate(ARRAYS):
        p = folder / f"a{i:03d}{suffix}"
        p.write_bytes(raw)
        out.append(HeadCase(name, p, tuple(words) if name in SHARED else (), tuple(words)))
    return out


@pytest.fixture(scope="module")
def outcomes(cases, tmp_path_factory):
    return run_driver(DRIVER, [c.path for c in cases], tmp_path_factory.mktemp("listing"))


def problems_of(r: dict, case: HeadCase, words) -> list[str]:
    msg, name = r["err"].strip(), printable(case.path)
    problems = []
    if r["rc"] != 2 or r["out"]:
        problems.append(f"exit {r['rc']}, stdout {r['out'][:40]!r}")
    if "\n" in msg or "Traceback" in msg or "Warning" in msg or "UI started" in msg:
        problems.append("not one line")
    if not (msg.startswith(name) or msg.startswith(f"attn-tui: {name}: ")):
        problems.append("does not name the file first")
    problems += [f"missing {w!r}" for w in words if w not in msg]
    return problems


@pytest.mark.parametrize("door", DOORS)
def test_every_hostile_file_is_refused_in_one_line_naming_it_exit_2(cases, outcomes, door):
    by_file = {str(c.path): c for c in cases}
    results = [r for r in outcomes if r["door"] == door]
    assert len(results) == len(cases) >= 17 + len(ARRAYS)
    failures = []
    for r in results:
        case = by_file[r["file"]]
        words = case.single if door == "resolve" else case.words if door in HEADS_DOORS else ()
        if problems := problems_of(r, case, words):
            failures.append((case.name, problems, r["err"][:300]))
    assert not failures


@pytest.mark.parametrize("door", DOORS)
def test_every_door_refuses_with_bounded_memory(cases, outcomes, door):
    """What a door allocates to refuse: its headers and small settings, plus (resolve, report,
        --scenario: the single-head door reads the file's bytes once) the file. The old multi-head
        reader let zipfile build 50,000 ZipInfos and json parse 2,000,001 numbers before refusing, and
    both doors let numpy inflate a 10^8-byte .npy header before its own limit refused it."""
    by_file = {str(c.path): c for c in cases}
    reads_whole = door in ("resolve", "report", "--scenario")
    over = []
    for r in (r for r in outcomes if r["door"] == door):
        size = by_file[r["file"]].path.stat().st_size
        bound = (2 * size if reads_whole else size) + 2 * 2**20
        if r["peak"] > bound:
            over.append((by_file[r["file"]].name, r["peak"], bound))
    assert not over


def test_the_multi_head_doors_say_what_the_single_head_door_says_of_a_bad_header(cases, outcomes):
    """One set of header checks: a header refused at `heads` has resolve's words, after the file."""
    by_key = {(r["file"], r["door"]): r["err"].strip() for r in outcomes}
    same = [c for c in cases if c.words and c.words == c.single]
    assert len(same) >= 20
    for c in same:
        single = by_key[(str(c.path), "resolve")]
        for door in HEADS_DOORS:
            assert by_key[(str(c.path), door)] == f"attn-tui: {single}", (c.name, door)


def test_is_heads_file_never_raises(tmp_path, monkeypatch):
    """It decides the door of every --scenario path: an unforeseen error is False (the single-head
    door then refuses the file in its own line), never a traceback."""
    from attn_tui.core.heads import multihead_io

    case = write_heads(tmp_path)[0]  # a Q of [L, H, T, d] with a list dtype: refused, so False
    assert multihead_io.is_heads_file(case.path) is False
    good = tmp_path / "good.npz"
    good.write_bytes(members(qkv()))
    assert multihead_io.is_heads_file(good) is True
    monkeypatch.setattr(multihead_io, "npz_headers", lambda *a: (_ for _ in ()).throw(TypeError("unhashable")))
    assert multihead_io.is_heads_file(good) is False


@pytest.mark.parametrize("where", ["headers", "slice", "readings", "head scenario"])
def test_the_backstop_covers_the_multi_head_doors(tmp_path, monkeypatch, capsys, where):
    """A TypeError or MemoryError no check foresaw, in the headers, in one head's read or in the
    readings: `heads`, `heads --json`, `report --layer 0 --head 0` and `--scenario` (the explorer's
    multi-head door, explorer.opened) say one line naming the file, exit 2."""
    from attn_tui.cli import main
    from attn_tui.core.heads import multihead_io, source

    p = tmp_path / "ok.npz"
    p.write_bytes(members(qkv()))

    def boom(*args, **kwargs):
        raise (TypeError("unhashable type: 'list'") if where != "readings" else MemoryError("x " * 60))

    if where == "headers":
        monkeypatch.setattr(multihead_io, "npz_headers", boom)
    elif where == "slice":
        monkeypatch.setattr(multihead_io, "read_slice", boom)
    elif where == "readings":
        monkeypatch.setattr(source, "head_readings_of", boom)
        monkeypatch.setattr(source, "head_scenario", boom)
    else:  # a TypeError making one head's Scenario: past the reader's own backstop
        monkeypatch.setattr(source, "head_scenario", boom)
    argvs = [
        ["heads", str(p)],
        ["heads", "--json", str(p)],
        ["report", "--scenario", str(p), "--layer", "0", "--head", "0"],
    ]
    if where != "headers":  # (headers that cannot be judged: is_heads_file is False, the single-head door says it)
        argvs.append(["--scenario", str(p)])  # the explorer's multi-head door: refused before any UI
    stub = type(sys)("attn_tui.tui.app")
    stub.AttentionApp = lambda *a, **k: pytest.fail("the UI started")
    monkeypatch.setitem(sys.modules, "attn_tui.tui.app", stub)
    if where == "head scenario":  # `heads` makes no Scenario
        argvs = argvs[2:]
    for argv in argvs:
        assert main(argv) == 2, argv
        out = capsys.readouterr()
        err = out.err.strip()
        assert out.out == "" and "\n" not in err and "Traceback" not in err, (argv, out)
        assert err.startswith(f"attn-tui: {p}: "), (argv, err)
        assert ("TypeError: unhashable type" if where != "readings" else "MemoryError: x x") in err, err
