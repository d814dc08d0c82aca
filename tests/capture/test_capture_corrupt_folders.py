"""`attn-tui capture` on what a careless or hostile user gives it (a review's findings, session 20): a
model folder whose weights or config are corrupt, a TEXT argument that is not UTF-8, an --out name the
filesystem refuses or that is empty, MODEL given as ".", and standard output that cannot be written.
Each is one line naming what is wrong, exit 2 (1 for the output), no traceback, no file left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attn_tui.cli import main
from tests.capture.test_capture_refusals import TEXT, leftovers, refused
from tests.capture.tiny_models import require_models


def _copy(tiny_folders, tmp_path) -> Path:
    folder = tmp_path / "m"
    shutil.copytree(tiny_folders("gpt2"), folder)
    return folder


def _truncate(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])


def _noise(folder: Path) -> None:
    (folder / "model.safetensors").write_bytes(os.urandom(4096))


def _heads(n):
    def change(folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text())
        config["n_head"] = n
        (folder / "config.json").write_text(json.dumps(config))

    return change


def _no_weights(folder: Path) -> None:
    (folder / "model.safetensors").unlink()


def _missing_shard(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    index = {"metadata": {}, "weight_map": {"h.0.attn.c_attn.weight": "model-00002-of-00002.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))


@pytest.mark.parametrize(
    ("spoil", "needles"),
    [
        (_truncate, ["the model could not be loaded or run", "SafetensorError"]),
        (_noise, ["the model could not be loaded or run", "SafetensorError"]),
        (_heads(0), ["the model could not be loaded or run"]),
        (_heads("four"), ["the model could not be loaded or run", "n_head"]),
        (_heads(-4), ["the model could not be loaded or run"]),
        (_no_weights, ["no weights that load", "capture reads model.safetensors"]),
        (_missing_shard, ["no weights that load", "model-00002-of-00002.safetensors"]),
    ],
    ids=["truncated weights", "random weights", "n_head 0", "n_head four", "n_head -4", "no weights", "a shard gone"],
)
def test_a_corrupt_model_folder_is_one_line(tiny_folders, tmp_path, capsys, monkeypatch, spoil, needles):
    require_models()
    folder = _copy(tiny_folders, tmp_path)
    spoil(folder)
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    line = refused(capsys, ["capture", str(folder), TEXT, "--out", "c.safetensors"], str(folder), *needles)
    assert "pickle" not in line  # a folder without weights was told its weights were a pickle
    assert leftovers(out) == []


def test_text_that_is_not_utf8_is_named_with_its_byte(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    monkeypatch.chdir(tmp_path)
    text = b"ab\xff\xfecd".decode("utf-8", "surrogateescape")  # what Python makes of such an argument
    refused(capsys, ["capture", str(tiny_folders("gpt2")), text], "TEXT: not UTF-8 text (byte 0xFF at character 3)")
    refused(capsys, ["heads", "text-demo", "--text", text], "--text: not UTF-8 text (byte 0xFF at character 3)")
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("out", "needle"),
    [("a" * 300 + ".safetensors", "cannot be written (File name too long)"), ("", "--out: empty")],
)
def test_an_out_the_filesystem_refuses_or_an_empty_one(tiny_folders, tmp_path, capsys, monkeypatch, out, needle):
    require_models()
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT, "--out", out], needle)
    assert leftovers(tmp_path) == []


def test_model_dot_is_the_folder_it_names(tiny_folders, tmp_path, capsys, monkeypatch):
    """`capture . TEXT` inside a model's folder writes <folder>.safetensors (it said "--out None")."""
    require_models()
    folder = _copy(tiny_folders, tmp_path)
    monkeypatch.chdir(folder)
    assert main(["capture", ".", TEXT]) == 0, capsys.readouterr().err
    assert (folder / "m.safetensors").is_file()


def test_standard_output_that_cannot_be_written_is_one_line_exit_1(tiny_folders, tmp_path):
    require_models()
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "attn_tui", "capture", str(tiny_folders("gpt2")), TEXT, "--out", "c.safetensors"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=600,
        )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().splitlines()[-1].startswith(
        "attn-tui: output incomplete"
    ), done.stderr
    assert leftovers(tmp_path) == []
