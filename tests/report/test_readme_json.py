"""docs/COMMANDS.md's list of JSON keys (moved from the README) names every key `report --json` writes."""

import json
import re
from pathlib import Path

from attn_tui.core import builtin
from attn_tui.report import as_json

README = (Path(__file__).resolve().parents[2] / "docs" / "COMMANDS.md").read_text()


def _documented() -> set[str]:
    para = README[README.index("JSON. One scenario:") :]
    para = para[: para.index("\n\n")]
    return set(re.findall(r"`([A-Za-z_0-9]+)`", para))


def test_every_json_key_is_documented():
    scenario = json.loads(as_json.scenario_json(builtin("lesson-pipeline"), "lesson-pipeline"))
    lesson = json.loads(as_json.lesson_json())
    missing = (set(scenario) | set(scenario["settings"]) | set(lesson)) - _documented()
    assert not missing, f"README does not name: {sorted(missing)}"
