"""Write assets/: the pictures of the README and docs/EXPLORER.md, taken from the app itself, and
every built-in scenario as TOML.

    .venv/bin/python scripts/make_assets.py [OUT_DIR]      # default: the repository's assets/

Run it after changing the app's look or core/builtins.py, look at the SVGs, commit them;
tests/test_readme_assets.py regenerates them in a temporary folder and fails when the committed ones
are stale. Every picture is the lesson's pipeline (the token and model views: induction-demo; the
README's token view: text-demo)
at 120×40 in the default dark theme, taken
with ``run_test`` + ``save_screenshot`` once the app has settled (no animation playing, the
chart drawn, the experiments' workers done), with NO_COLOR/TEXTUAL_THEME removed.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

for _var in ("NO_COLOR", "TEXTUAL_THEME", "TEXTUAL_ANIMATIONS"):  # before Textual reads them
    os.environ.pop(_var, None)

from attn_tui.core.builtins import BUILTINS  # noqa: E402
from attn_tui.core.scenario_io import save  # noqa: E402

ASSETS = Path(__file__).resolve().parent.parent / "assets"
SIZE = (120, 40)
THEME = "textual-dark"
# name -> the keys pressed on the explorer before the picture (the README shows the explorer,
# docs/EXPLORER.md the rest, in this order)
PICTURES = {
    "explorer": (),
    "lenses": ("l",),
    "experiments": ("x",),
    "tour": ("t",),
    "tokens": ("T", "j", "j"),
    "model": ("M", "M"),
    "text": ("T",),
}
# name -> the multi-head source a picture opens on (NAME, tokens, layer, head[, query t from 1]) instead of the
# lesson's pipeline; tokens None: the built-in's own text (text-demo: its sentence, on its induction head L1.H0, at
# t16, the second " returns": it reads t4 " a", the token after the first, and the model predicts " a")
SOURCES = {
    "tokens": ("induction-demo", "q w e r t y u i q w e r t y u i", 1, 2),
    "model": ("induction-demo", "q w e r t y u i q w e r t y u i", 1, 2),
    "text": ("text-demo", None, 1, 0, 16),
}
SWEEP = "softmax_sharpening.svg"


async def _settle(pilot) -> None:
    """Until idle: messages handled, refreshes done, every worker (app and screen) finished."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.app.screen.workers.wait_for_complete()
    await pilot.pause()


async def picture(keys, path: Path, theme: str = THEME, size=SIZE, source=None) -> Path:
    """One SVG screenshot of the explorer after ``keys``, on the lesson's pipeline or on ``source``
    (SOURCES' form), in a 256-colour terminal (the token view reads the colour depth from TERM)."""
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.heads_nav import open_ref
    from attn_tui.tui.widgets.softmax_chart import SoftmaxChart

    os.environ.update(TERM="xterm-256color", COLORTERM="truecolor")
    interval, SoftmaxChart.INTERVAL = SoftmaxChart.INTERVAL, 0.0  # every state drawn at once: no throttle
    try:
        if source is None:
            app = AttentionApp()
        else:
            name, tokens, layer, head, *row = source
            scenario, ref = open_ref(name, tokens, layer, head)
            scenario = scenario.with_(focus_row=row[0]) if row else scenario
            app = AttentionApp(scenario=scenario, head=ref)
        async with app.run_test(size=size) as pilot:
            app.theme = theme
            await _settle(pilot)
            for key in keys:
                await pilot.press(key)
                await _settle(pilot)
            app.save_screenshot(filename=path.name, path=str(path.parent))
    finally:
        SoftmaxChart.INTERVAL = interval
    return path


def write_pictures(out: Path, theme: str = THEME) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [
        asyncio.run(picture(keys, out / f"{name}.svg", theme, source=SOURCES.get(name)))
        for name, keys in PICTURES.items()
    ]


def write_sweep(out: Path) -> Path:
    """The scale sweep as one looping animated SVG: the experiments screen's own frames and export
    (its `e`), the lesson's softmax_sharpening animation."""
    from attn_tui.core.experiments import scale_sweep
    from attn_tui.report.sweep_svg import animated_svg
    from attn_tui.tui.screens.experiments import FPS

    frames = scale_sweep()
    labels = [f"t{i + 1}" for i in range(len(frames[0]["row"]))]
    path = out / SWEEP
    path.write_text(animated_svg(frames, labels, fps=FPS), encoding="utf-8")
    return path


def write_scenarios(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    return [save(make(), out / f"{name}.toml", overwrite=True) for name, make in BUILTINS.items()]


def normalised(svg: str) -> str:
    """An SVG without what may differ between two runs of the same picture (Rich's content-hash ids)."""
    return re.sub(r"terminal-\d+", "terminal-ID", svg)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ASSETS
    for p in write_scenarios(out / "scenarios") + write_pictures(out) + [write_sweep(out)]:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
