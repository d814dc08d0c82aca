"""Issue 52's done-when, the kept session's door in the app: a hostile file becomes a kept session, and the
next launch restores it (docs/SESSIONS.md).

- A file that opens (tests/tui/hostile_doors.py): `--scenario F`, one edit (`+`: c x 1.1), `q` keeps it (past
  SESSION_MAX tokens no TOML holds it, and `q` says so in one line); `--resume` brings it back on the same
  file's head with its labels, and every screen opens on it. Then a hostile file takes its place: `--resume`
  restores the kept scenario as one head, and the note says why in the `--scenario` door's words.
- A file that never opens, named by a kept session as its head (the refused heads files of the corpus):
  `--resume` restores the kept scenario as one head, the note naming the file in the door's words.
- A kept session holding a bad scenario text: the launch says in one line that it was ignored, and the
  scenario asked for stays (every text of the corpus: tests/core/test_session_corpus.py).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from attn_tui.cli import heads as heads_cli
from attn_tui.core import session_store as store
from attn_tui.core.builtins import builtin
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.limits import SESSION_MAX
from attn_tui.core.session_heads import HeadAt
from attn_tui.tui.screens import SCREENS
from tests.core.badheads import write_heads
from tests.core.test_rollout_padded import padded_file
from tests.core.test_session_corpus import holding
from tests.tui.hostile_doors import SIZE, launched, open_every_screen, readable_files

LONG = pytest.mark.long  # the long lane (docs/TESTING.md)
CONTROL = "q\n\nall heads OK\r"  # issue 52 item 8: a label that printed injected lines


def _notes(app) -> list[str]:
    return [str(n.message) for n in app.notes.shown()]


def _door_line(path) -> str:
    """What `attn-tui --scenario PATH` says of a heads file it refuses (less the `attn-tui: ` every line has)."""
    try:
        heads_cli.open_first(str(path), None)
    except ValueError as exc:
        return str(exc)
    raise AssertionError(f"{path}: opened")


def _restored_as_one_head(app, path) -> None:
    line = _door_line(path)
    note = f"its heads file could not be reopened ({line}): restored as one head"
    assert app.state.head is None and any(note in n for n in _notes(app)), (line, _notes(app))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return readable_files(tmp_path_factory.mktemp("open"))


@pytest.mark.slow
@pytest.mark.parametrize(  # 30 to 55 s each here (three launches, every screen twice): one outside the long lane
    "name", ["markup heads", pytest.param("wide heads", marks=LONG), pytest.param("2,048 tokens, sparse", marks=LONG)]
)
async def test_a_hostile_file_kept_comes_back_and_one_put_in_its_place_is_refused(files, tmp_path, name, settle):
    path = tmp_path / os.path.basename(files[name])
    path.write_bytes(open(files[name], "rb").read())
    app = launched("--scenario", str(path), "--fresh")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus")
        await pilot.pause()
        await pilot.press("q")
    tokens = app.state.scenario.tokens
    if len(tokens) > SESSION_MAX:  # no TOML holds it: q says so in one line, and nothing is written
        assert app.session.message.startswith(f"attn-tui: the session was NOT kept: {len(tokens)} tokens: ")
        assert "\n" not in app.session.message and not list(store.state_folder().glob("session-*"))
        return
    assert "your session (1 edit, c = 1.1) is kept in" in app.session.message, app.session.message

    app = launched("--resume")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        st = app.state
        assert st.head is not None and st.head.name == str(path) and st.scenario.tokens == tokens
        assert st.scenario.c == pytest.approx(1.1)
        assert await open_every_screen(app, pilot) == list(SCREENS)  # no q: the kept file stays as it was

    q = np.random.default_rng(0).standard_normal((2, 2, 3, 2))
    save_heads(path, q, q, q, tokens=["x", CONTROL, "z"], mask="causal")  # the same path, a hostile file
    app = launched("--resume")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        _restored_as_one_head(app, path)
        assert app.state.scenario.tokens == tokens and app.state.scenario.c == pytest.approx(1.1)
        assert await open_every_screen(app, pilot) == list(SCREENS)
    assert app.return_code in (None, 0)


def _refused_heads(folder) -> list:
    q = np.random.default_rng(0).standard_normal((2, 2, 3, 2))
    labels = {"control": CONTROL, "surrogate": "a\ud800b", "spaces": "a" + " " * 100_000 + "b"}
    out = [
        save_heads(folder / f"{k}.safetensors", q, q, q, tokens=["x", v, "z"], mask="causal") for k, v in labels.items()
    ]
    return out + [padded_file(folder / "padded.safetensors")[0]]


async def _resume_on(path, settle) -> None:
    s = builtin("lesson-pipeline")
    store.write(store.state_folder(), store.Kept(scenario=s.with_(c=1.1), head=HeadAt(str(path), 0, 0)))
    app = launched("--resume")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        _restored_as_one_head(app, path)
        assert app.state.scenario.c == pytest.approx(1.1) and app.is_running
        await pilot.press("q")
    assert app.return_code in (None, 0)


@pytest.mark.slow
async def test_a_kept_head_of_each_refused_heads_file_restores_as_one_head(tmp_path, settle):
    for path in _refused_heads(tmp_path):
        await _resume_on(path, settle)


@pytest.mark.slow
@LONG  # the corpus of tests/core/badheads.py: 17 launches, and a 400 MB deflated member written
async def test_a_kept_head_of_each_bad_heads_file_restores_as_one_head(tmp_path, settle):
    for case in write_heads(tmp_path):
        await _resume_on(case.path, settle)


@pytest.mark.slow
@pytest.mark.parametrize(
    "text", [".".join(f"k{i}" for i in range(20_000)) + " = 1\n", "Q = [[1.0,\n"], ids=["dotted key bomb", "syntax"]
)
async def test_a_kept_session_holding_a_bad_scenario_is_ignored_in_one_line(files, text, settle):
    path = store.write(store.state_folder(), store.Kept(scenario=builtin("lesson-pipeline")))
    path.write_text(holding(text, "scenario"), encoding="utf-8")
    app = launched("--scenario", files["markup.toml"], "--resume")
    asked = app.state.scenario
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.state.scenario is asked
        ignored = [m for m in app.notes.messages() if str(path) in m]
        assert len(ignored) == 1 and f"{path} (scenario): " in ignored[0] and "\n" not in ignored[0], _notes(app)
