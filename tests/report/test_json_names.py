"""Issue 34, item 8: `report --json` writes valid UTF-8 whatever the file's name: a name with
byte 0xFF (os.fsdecode's lone surrogate) put raw invalid UTF-8 into "name"; the README
promises any parser reads the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from attn_tui.report.as_json import clean, dumps

QK = "Q = [[1.0, 0.0], [0.0, 1.0]]\nK = [[1.0, 0.0], [0.0, 1.0]]\n"


def test_json_output_is_valid_utf8_with_an_undecodable_file_name(tmp_path):
    """A file name with byte 0xFF put raw invalid UTF-8 into "name"; any strict parser must read it."""
    name = os.fsencode(tmp_path) + b"/caf\xff.toml"
    with open(name, "wb") as f:
        f.write(QK.encode())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run(
        [sys.executable, "-m", "attn_tui", "report", "--json", "--scenario", name],
        capture_output=True,
        check=False,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout.decode("utf-8"))  # strict: raises on raw 0xFF
    assert doc["name"].endswith("caf\\udcff.toml")
    assert res.stdout.decode("utf-8").encode("utf-8") == res.stdout


def test_clean_escapes_only_strings_that_are_not_utf8():
    assert clean({"name": "caf\udcff.toml", "title": "café ☕"}) == {"name": "caf\\udcff.toml", "title": "café ☕"}
    assert json.loads(dumps({"name": "\udcff"}).encode("utf-8")) == {"name": "\\udcff"}
