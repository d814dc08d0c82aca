"""The knob's step is written once (state.C_STEP): the help screen, the palette and the tour's scale
page say it from there, and the key bar says no step at all, so a new step changes those texts and
no key bar (nor the snapshots that show one). The key table is built when keys_app is imported,
so each step is read in a fresh interpreter with C_STEP set before that import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from attn_tui.tui import state
if sys.argv[1] != "default":
    state.C_STEP = float(sys.argv[1])
from attn_tui.tui import keys
from attn_tui.tui.screens.help import help_markdown
from attn_tui.tui.views import teaching
rows = {k.display: k for k in keys.all_keys() if k.scope == "app" and k.display in ("+", "-")}
print(json.dumps({
    "palette": [rows[d].description for d in "+-"],
    "help": [rows[d].help for d in "+-"],
    "bar": [keys.bar_label(rows[d].action) for d in "+-"],
    "action": [rows[d].action for d in "+-"],
    "help_screen": help_markdown(),
    "tour": teaching.scale(),
}))
"""


def texts(step: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, step], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def steps():
    return texts("default"), texts("1.2")


def test_the_default_step_is_the_one_written(steps):
    default, _ = steps
    assert default["palette"] == ["c×1.1", "c÷1.1"]
    assert "multiply the scale multiplier c by 1.1" in default["help"][0] and "by 1.1" in default["help"][1]
    assert "multiply and divide c by 1.1;" in default["tour"]


def test_a_new_step_changes_the_help_palette_and_tour_and_not_the_key_bar(steps):
    default, new = steps
    assert new["palette"] == ["c×1.2", "c÷1.2"]
    assert "multiply the scale multiplier c by 1.2" in new["help"][0] and "divide c by 1.2" in new["help"][1]
    assert new["action"][0] == "do('knobs.scale_by', 1.2)" and "1.2" not in default["action"][0]
    assert "| c×1.2 |" in new["help_screen"] and "c×1.1" not in new["help_screen"]
    assert "multiply and divide c by 1.2;" in new["tour"]
    assert new["bar"] == default["bar"] == ["multiplier ×÷", "multiplier ×÷"]  # no step on the bar
