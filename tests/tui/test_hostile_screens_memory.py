"""Issue 52's done-when, the `--scenario` door with each screen opened, measured: each readable hostile file
(tests/tui/hostile_doors.py), launched as `attn-tui --scenario F --fresh` launches it, every screen opened and
then `q`, in a fresh interpreter. Its exit code is what the command's would be (cli/explorer.py: the app's
return code, else 0), nothing reaches stderr, and its own peak resident memory (tests/peak_rss.py) stays
under issue 52's 500 MB: every one of these files is under 1 MB on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.peak_rss import BUDGET, MIB, PRINT_PEAK, printed_peak
from tests.tui.hostile_doors import readable_files

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = f"""
import asyncio, sys
from tests.tui.hostile_doors import SIZE, launched, open_every_screen

async def main(path):
    app = launched("--scenario", path, "--fresh")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await open_every_screen(app, pilot)
        await pilot.press("q")
    print(getattr(app, "return_code", None) or 0)
    {PRINT_PEAK}

asyncio.run(main(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return readable_files(tmp_path_factory.mktemp("open"))


@pytest.mark.slow
@pytest.mark.long  # a fresh interpreter a file, every screen: 20 s to a minute each here (docs/TESTING.md)
def test_each_readable_hostile_file_through_every_screen_exits_0_under_the_budget(files, tmp_path):
    env = os.environ | {"XDG_STATE_HOME": str(tmp_path)}
    failures = []
    for name, path in files.items():
        assert os.stat(path).st_blocks * 512 < 2**20, name  # under 1 MB on disk
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, path], capture_output=True, text=True, timeout=1200, cwd=ROOT, env=env
        )
        words = out.stdout.split()
        code, peak = (int(words[-2]), printed_peak(out.stdout)) if out.returncode == 0 else (None, 0)
        if out.returncode != 0 or code != 0 or out.stderr or peak >= BUDGET:
            failures.append((name, out.returncode, code, peak / MIB, out.stderr[-400:]))
        print(f"{name}: exit {code}, peak {peak / MIB:.0f} MiB")
    assert not failures, failures
