"""The committed assets are what scripts/make_assets.py writes now: the README's pictures (taken
from the app), the scale-sweep animation and the built-in scenarios, regenerated in a temporary
folder and compared (SVGs without Rich's content-hash ids). Stale: run scripts/make_assets.py."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
_spec = importlib.util.spec_from_file_location("make_assets", ROOT / "scripts" / "make_assets.py")
make_assets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_assets)

STALE = "stale: run .venv/bin/python scripts/make_assets.py, look at the SVGs, commit them"


@pytest.mark.parametrize("name", list(make_assets.PICTURES))
def test_picture_is_current(name, tmp_path):
    keys = make_assets.PICTURES[name]
    fresh = asyncio.run(make_assets.picture(keys, tmp_path / f"{name}.svg", source=make_assets.SOURCES.get(name)))
    committed = ASSETS / f"{name}.svg"
    assert committed.exists(), f"assets/{name}.svg missing: {STALE}"
    same = make_assets.normalised(fresh.read_text()) == make_assets.normalised(committed.read_text())
    assert same, f"assets/{name}.svg is {STALE}"


def test_sweep_animation_and_scenarios_are_current(tmp_path):
    written = [make_assets.write_sweep(tmp_path)] + make_assets.write_scenarios(tmp_path / "scenarios")
    for fresh in written:
        committed = ASSETS / fresh.relative_to(tmp_path)
        assert committed.exists() and committed.read_bytes() == fresh.read_bytes(), f"{committed} is {STALE}"
    committed_toml = {p.name for p in (ASSETS / "scenarios").glob("*.toml")}
    assert committed_toml == {p.name for p in written if p.suffix == ".toml"}, "a built-in was added or removed"


def test_normalised_removes_only_the_ids():
    a = '<style>.terminal-123-r1 {fill: #fff}</style><text class="terminal-123-r1">0.870</text>'
    b = a.replace("123", "98765")
    assert make_assets.normalised(a) == make_assets.normalised(b)
    assert make_assets.normalised(a) != make_assets.normalised(a.replace("0.870", "0.871"))


def test_readme_shows_the_pictures_explorer_first():
    """The README's first screen shows the explorer right after the commands and what it is; the other
    screens' pictures are on docs/EXPLORER.md, in make_assets' order."""
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    fence_end = [i for i, line in enumerate(lines) if line.startswith("```")][1]
    first_image = next(i for i, line in enumerate(lines) if "![" in line)
    assert "assets/explorer.svg" in lines[first_image] and first_image <= fence_end + 6  # on the first screen
    page = (ROOT / "docs" / "EXPLORER.md").read_text()
    pictures = [f"../assets/{name}.svg" for name in make_assets.PICTURES if name != "explorer"]
    pictures.append(f"../assets/{make_assets.SWEEP}")
    positions = [page.find(p) for p in pictures]
    assert -1 not in positions, [p for p, i in zip(pictures, positions) if i == -1]
    assert positions == sorted(positions)
