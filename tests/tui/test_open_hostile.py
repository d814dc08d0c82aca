"""Issue 10: the app's open (o) on a sample of the generated bad-input corpus
(tests/core/badfiles.py): every file is refused with a message naming it, the app keeps
running with the scenario it had, and nothing blocks (a FIFO, /dev/zero)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from attn_tui.core.limits import printable
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.screens.files import OpenScreen
from tests.core.badfiles import write_corpus

SIZE = (120, 40)
SAMPLE = (
    "FIFO",
    "symlink to /dev/zero",
    "a folder",
    "symlink loop",
    "name of 300 characters",
    "nesting 5000",
    "huge int cell",
    "c 10**400",
    "window 10**30",
    "T = 100000",
    "X and W_Q 1e308",
    "f16 Q from X and W_Q",
    "f16 scores from Q and K",
    "ESC in title",
    "BEL in label",
    "label 3000 characters",
    "empty label",
    "c above range",
    "window with causal",
    "file over the size limit",
    "NUL byte",
    "ESC and newline in the file name",
    # issue 34: crashes that lost the session, tracebacks, bombs, label text
    "safetensors dtype a list",
    "safetensors dtype an object",
    "npz 2**40 labels",
    "npz encrypted members",
    "npz compression method 99",
    "npz tokens inflate to 10**7",
    "npz title of 5 M characters",
    "npz padding of 10**6 ones",
    "safetensors Q twice",
    "safetensors Q tensor and metadata",
    "dotted key of 20000 parts",
    "bidi override in a label",
    "npz bidi label",
    "zero-width label",
    "combining marks only",
)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    cases = {c.name: c for c in write_corpus(tmp_path_factory.mktemp("bad"))}
    return [cases[name] for name in SAMPLE]


async def open_path(app, pilot, path: str, type_it: bool = False) -> None:
    await pilot.press("o")
    await pilot.pause()
    assert isinstance(app.screen, OpenScreen)
    field = app.screen.query_one("#path", Input)
    assert app.focused is field
    if type_it:  # the way a person does it, key by key
        field.value = ""
        await pilot.press(*path)
        assert field.value == path
    else:
        field.value = path
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.slow  # every bad file of the corpus through the dialog
@pytest.mark.long  # the long lane (docs/TESTING.md)
async def test_open_refuses_each_bad_file_and_keeps_the_scenario(sample):
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        before = app.state.scenario
        failures = []
        for case in sample:
            await open_path(app, pilot, str(case.path))
            shown = app.screen.message if isinstance(app.screen, OpenScreen) else "<dialog closed>"
            missing = [w for w in (printable(case.path), *case.words) if w not in shown]
            if missing or "\n" in shown or app.state.scenario is not before:
                failures.append((case.name, missing, shown[:160]))
            assert app.is_running, case.name
            await pilot.press("escape")
            await pilot.pause()
        assert not failures
        assert app.state.scenario is before and not isinstance(app.screen, OpenScreen)
        assert app.return_code in (None, 0)


@pytest.mark.parametrize("name", ["FIFO", "f16 scores from Q and K"])
@pytest.mark.slow  # ~2-4 s: the fast lane's longest (docs/TESTING.md)
async def test_a_typed_path_is_refused_too(sample, name):
    case = next(c for c in sample if c.name == name)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        before = app.state.scenario
        await open_path(app, pilot, str(case.path), type_it=True)
        assert app.is_running and app.state.scenario is before
        assert isinstance(app.screen, OpenScreen) and str(case.path) in app.screen.message
        assert all(w in app.screen.message for w in case.words)


@pytest.mark.slow
async def test_an_unforeseen_exception_keeps_the_session_and_names_the_file(tmp_path, monkeypatch):
    """The backstop (issue 34): whatever a reader raises (MemoryError, TypeError ...), the dialog
    shows one line naming the file and the app keeps its scenario; it used to exit 1."""
    from attn_tui.core import scenario_io

    p = tmp_path / "s.npz"
    p.write_bytes(b"not read")

    def boom(*args, **kwargs):
        raise MemoryError("Unable to allocate 4.00 TiB for an array with shape (1099511627776,) and data type <U1")

    monkeypatch.setattr(scenario_io, "resolve", boom)
    app = AttentionApp()
    async with app.run_test(size=SIZE) as pilot:
        before = app.state.scenario
        await open_path(app, pilot, str(p))
        assert app.is_running and app.state.scenario is before
        assert isinstance(app.screen, OpenScreen)
        assert app.screen.message == (
            f"{p}: cannot be opened (MemoryError: Unable to allocate 4.00 TiB for an array with shape "
            "(1099511627776,) and...)"
        )
