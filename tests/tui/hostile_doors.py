"""Issue 52's done-when, the explorer's part: the hostile files the tests build that the `--scenario` door
opens (every other one is refused there in one line, exit 2: tests/report/test_hostile_corpus.py), launched
as `attn-tui --scenario F` launches (cli/explorer.py: the door, the session keeper, the app), then every
screen of the registry opened (tui/screens SCREENS, the keys the key table derives from it) and, on the
screens that have them, the keys that open another view of the same heads (the token view's rollout R,
the model view's every layer M, ...).
"""

from __future__ import annotations

import numpy as np

from attn_tui.cli import build_parser, explorer
from attn_tui.core import builtin
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.scenario_io import dumps
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.keys import all_keys
from attn_tui.tui.screens import SCREENS
from tests.core.badheads import sparse_heads

SIZE = (120, 40)
MARKUP = ("[x=", "[bold red]B[/]", "t3 [soft", "[/]", "t5")  # issue 52 item 1: MarkupError at launch
WIDE = ("Ｗ" * 24, "e\u0301" * 12, "a b", "[/x]", "t5")  # 24 characters of two cells; 12 letters + marks
# a screen's own keys that open another view of what it shows (each is looked up in the key table)
VIEWS = {"tokens": ("R", "j", "f"), "model": ("M", "j"), "heads": ("right", "v")}


def readable_files(folder) -> dict:
    """name -> path of each hostile file that opens: labels that read as markup or are wide, in a scenario
    file and in a heads file, and heads files whose few KB promise many heads or tokens (sparse)."""
    s = builtin("lesson-pipeline")
    files = {}
    for name, labels in (("markup", MARKUP), ("wide", WIDE)):
        files[f"{name}.toml"] = folder / f"{name}.toml"
        files[f"{name}.toml"].write_text(dumps(s.with_(tokens=labels, focus_row=1)), encoding="utf-8")
        q = np.random.default_rng(0).standard_normal((2, 2, len(labels), 3))
        files[f"{name} heads"] = save_heads(folder / f"{name}.npz", q, q, q, tokens=list(labels), mask="causal")
    files["2,048 tokens, sparse"] = sparse_heads(folder / "long.safetensors", L=1, H=2, T=2048)
    files["1,024 x 1,024 heads, sparse"] = sparse_heads(folder / "many.safetensors", L=1024, H=1024, T=16)
    return {k: str(v) for k, v in files.items()}


def launched(*argv: str) -> AttentionApp:
    """The app `attn-tui ARGV` runs (cli/explorer.py _run, less the terminal): ScenarioError as the door's."""
    args = build_parser().parse_args(list(argv))
    scenario, head = explorer.opened(args)
    heads = {} if head is None else {"head": head}
    return AttentionApp(scenario=scenario, session=explorer.keeper(args, scenario), **heads)


def screen_keys() -> list[tuple[str, str, tuple]]:
    """(the screen's mode name, the key that opens it, its own view keys) for every registered screen."""
    table = {(k.scope, key) for k in all_keys() for key in k.key.split(",")}
    out = []
    for e in SCREENS.values():
        own = VIEWS.get(e.name, ())
        missing = [key for key in own if (e.name, key) not in table]
        assert not missing, f"{e.name}: {missing} not in the key table"
        out.append((e.name, e.key, own))
    return out


async def open_every_screen(app, pilot) -> list[str]:
    """Open each screen, then its view keys, then help (?); the modes seen, in order. Nothing waits for a
    worker to end: a hostile file's worker may read for minutes, and the next key supersedes it."""
    seen = []
    for mode, key, own in screen_keys():
        await pilot.press(key)
        await pilot.pause()
        assert app.current_mode == mode, (key, app.current_mode)
        for k in own:
            await pilot.press(k)
            await pilot.pause()
        seen.append(app.current_mode)
    await pilot.press("question_mark")
    await pilot.pause()
    await pilot.press("escape", "p")
    await pilot.pause()
    return seen
