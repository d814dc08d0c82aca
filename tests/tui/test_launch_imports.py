"""Launch imports only what the first screen draws (issue 32): the other screens, the actions and
their dialogs, training, export, the multi-head and array-file readers, and serve's guard load on
first use. A fresh interpreter imports what `attn-tui` imports before the first frame and lists
sys.modules; a top-level import that drags one of these in fails here (no timing is asserted)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

LAUNCH = "import attn_tui.cli, attn_tui.tui.app, attn_tui.tui.screens.pipeline"
LAZY = (
    "attn_tui.tui.actions.*",  # every action module: knobs, edit, files, modes, go, heads, undo, lenses, tour
    "attn_tui.tui.screens.lenses",
    "attn_tui.tui.screens.experiments",
    "attn_tui.tui.screens.tour",
    "attn_tui.tui.screens.train",
    "attn_tui.tui.screens.heads",
    "attn_tui.tui.screens.help",
    "attn_tui.tui.screens.files",
    "attn_tui.tui.screens.pickers",
    "attn_tui.tui.screens.editor",
    "attn_tui.tui.heads_commands",
    "attn_tui.tui.tour_text",
    "attn_tui.core.train",
    "attn_tui.core.export",
    "attn_tui.core.heads",
    "attn_tui.core.models",  # the built-in models: loaded when one is opened
    "tokenizers",  # text-demo's BPE: imported when text-demo is first used
    "attn_tui.core.random_scenario",
    "attn_tui.core.lazy",
    "attn_tui.core.stream",
    "attn_tui.serve",  # the server, its guard, a tab
    "attn_tui.report",
    "attn_tui.capture",
    "attn_tui.cli.parser",  # the parser: `attn-tui` without arguments builds none (cli.NO_ARGS)
    "argparse",
    "attn_tui.cli.train",
    "attn_tui.cli.heads",
    "attn_tui.cli.capture",
    "attn_tui.cli.serve",
)
ALLOWED: tuple[str, ...] = ()  # none: the dialogs' next paths (actions/paths.py) come with the first dialog


def lazy(module: str) -> bool:
    """``module`` is one of LAZY or inside one (a name ending in .* : only what is inside)."""
    if module in ALLOWED:
        return False
    return any(
        module.startswith(name[:-1]) if name.endswith(".*") else module == name or module.startswith(name + ".")
        for name in LAZY
    )


def imported(code: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_launch_leaves_every_other_screen_and_action_unimported():
    mods = imported(LAUNCH)
    eager = [m for m in mods if lazy(m)]
    assert not eager, f"imported before the first screen: {eager}"
    assert "attn_tui.tui.screens.pipeline" in mods and "textual_plotext" in mods  # the check sees imports


# Standard modules only a file's reading or writing needs (a TOML scenario or kept session, an .npz,
# a temporary name): ~7 ms of a launch that opens no file (issue 32).
FILE_ONLY = ("tomllib", "secrets", "hashlib", "zipfile")  # not json: imported() itself prints with it


def test_launch_reads_no_file_format_it_does_not_open():
    mods = imported(LAUNCH)
    assert not [m for m in FILE_ONLY if m in mods]


@pytest.mark.parametrize("module", ["attn_tui.tui.actions.edit", "attn_tui.tui.screens.train"])
def test_the_check_would_see_a_lazy_module_imported_at_launch(module):
    """The test above can fail: the same listing with one lazy module imported names it."""
    mods = imported(f"{LAUNCH}\nimport {module}")
    assert [m for m in mods if lazy(m)]


async def test_the_collector_paused_for_the_start_up_is_back_after_the_first_frame():
    """cli.explorer.run pauses the cyclic collector for the start-up; the app resumes it once it has drawn."""
    from attn_tui.tui.app import AttentionApp

    gc.disable()
    try:
        app = AttentionApp()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()  # the test process's objects back in the collector's reach


def test_a_command_other_than_the_explorer_runs_with_the_collector_on(capsys, monkeypatch):
    """`python -m attn_tui report`: __main__ paused the collector, main resumes it once the command is known."""
    from attn_tui import cli
    from attn_tui.cli import report as command

    seen, render = [], command.render
    monkeypatch.setattr(command, "render", lambda args: seen.append(gc.isenabled()) or render(args))
    gc.disable()
    try:
        assert cli.main(["report"]) == 0
        assert seen == [True]
    finally:
        gc.enable()
