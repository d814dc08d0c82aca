"""capture leaves no partial file when it is stopped by SIGTERM or SIGHUP (a closed terminal), or by
`timeout` (which sends SIGTERM), issue 52 item 7; and a partial left by a process that is gone
(SIGKILL cannot be caught) is removed by the next capture to the same file. Each in a subprocess,
the signal sent once the partial file exists (waited on, not slept for)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.capture.tiny_models import CORPUS, require_models

ROOT = Path(__file__).resolve().parents[2]


def _partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial.safetensors"))


def _start(argv, tmp_path):
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    return subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _when_partial(p, folder: Path, limit: float = 120.0) -> list[str]:
    """The partial files once one exists (polled: the state, not a fixed sleep)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and p.poll() is None:
        found = _partials(folder)
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"no partial file appeared (exit {p.poll()})")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "timeout"])
def test_a_signal_removes_the_partial_file(tiny_folders, tmp_path, how):
    require_models()
    folder = str(tiny_folders("llama", num_hidden_layers=8, max_position_embeddings=1024))
    argv = [sys.executable, "-m", "attn_tui", "capture", folder, " ".join(CORPUS * 8), "--out", "x.safetensors"]
    if how == "timeout":
        if shutil.which("timeout") is None:
            pytest.skip("no timeout(1) here")
        argv = ["timeout", "600", *argv]  # timeout forwards the SIGTERM it is sent to the capture
    p = _start(argv, tmp_path)
    try:
        assert _when_partial(p, tmp_path)
        p.send_signal(signal.SIGHUP if how == "SIGHUP" else signal.SIGTERM)
        _, err = p.communicate(timeout=120)
    finally:
        p.kill()
    signum = signal.SIGHUP if how == "SIGHUP" else signal.SIGTERM
    assert p.returncode == 128 + signum, err
    assert err.strip().endswith(f"capture stopped by {signal.Signals(signum).name}; no file written"), err
    assert sorted(x.name for x in tmp_path.iterdir()) == []


def test_a_partial_of_a_process_that_is_gone_is_removed_by_the_next_capture(tiny_folders, tmp_path):
    require_models()
    from attn_tui.capture.destination import Destination

    folder = str(tiny_folders("gpt2"))
    p = _start([sys.executable, "-m", "attn_tui", "capture", folder, "the cat", "--out", "x.safetensors"], tmp_path)
    try:
        left = _when_partial(p, tmp_path)
        p.kill()  # SIGKILL: nothing runs, the partial stays
        p.wait(timeout=60)
    finally:
        p.kill()
    assert _partials(tmp_path) == left
    other = tmp_path / f".x.safetensors.{os.getpid()}.abcd.partial.safetensors"  # a live process's: kept
    other.write_bytes(b"")
    with Destination(tmp_path / "x.safetensors") as tmp:
        assert _partials(tmp_path) == sorted([other.name, Path(tmp).name])
    assert _partials(tmp_path) == [other.name]
