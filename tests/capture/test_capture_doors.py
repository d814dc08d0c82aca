"""The doors a real user of `attn-tui capture` hits (issue 41 item 5, issue 44 item 3): one line on
stderr, exit 2 (1 when the disk fails the write), no traceback, nothing left behind; the model's
weights from .safetensors only unless --allow-pickle; the text's file read bounded."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import tracemalloc

import pytest

from attn_tui.cli import main
from tests.capture.test_capture_refusals import TEXT, leftovers, refused
from tests.capture.tiny_models import require_models


@pytest.mark.parametrize("given", ["./nope", "../nope/model", "/no/such/model", "a/b/c"])
def test_a_path_that_does_not_exist_says_so(tmp_path, capsys, monkeypatch, given):
    require_models()
    monkeypatch.chdir(tmp_path)
    assert refused(capsys, ["capture", given, TEXT]) == f"attn-tui: {given}: no such folder"
    assert leftovers(tmp_path) == []


def test_a_file_is_not_a_model(tmp_path, capsys, monkeypatch):
    require_models()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.txt").write_text("x")
    refused(capsys, ["capture", "model.txt", TEXT], "model.txt: is a file; MODEL is a model's folder or a hub id")


def test_a_folder_without_a_tokenizer_says_so(tmp_path, capsys, monkeypatch):
    require_models()
    import torch
    from transformers import AutoModel

    from tests.capture.tiny_models import config_of

    torch.manual_seed(0)
    AutoModel.from_config(config_of("gpt2", 300)).save_pretrained(tmp_path / "m")
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", "m", TEXT], "m: has no tokenizer", "tokenizer.save_pretrained(folder)")
    assert leftovers(tmp_path) == ["m"]


def test_the_no_tokenizer_line_tells_a_model_built_offline_what_to_do(tmp_path):
    """Issue 51: a learner whose model was built from a config has no tokenizer to save: the line says
    which to save (one of the embedding's vocabulary) or how to write the heads without one."""
    from attn_tui.capture.hub import NO_TOKENIZER, tokenizer_missing

    line = tokenizer_missing(str(tmp_path))  # a folder with no tokenizer file
    assert line is not None and line.endswith(NO_TOKENIZER) and "\n" not in line
    assert "save_pretrained(folder)" in NO_TOKENIZER and "save_heads" in NO_TOKENIZER


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once closed: a connection is refused at once


@pytest.mark.parametrize("offline", [False, True])
def test_a_hub_id_without_the_network_fails_at_once(tmp_path, offline):
    """A hub that refuses connections (HF_ENDPOINT at a closed local port) and an empty cache: one line
    naming the cause and the way out (a local folder, the cache, HF_HUB_OFFLINE=1), without the
    library's retries (the probe runs before transformers is imported: a process of its own)."""
    require_models()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "HTTP", "http"))}
    env |= {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"}
    env |= {"HF_HUB_OFFLINE": "1"} if offline else {}
    argv = [sys.executable, "-m", "attn_tui", "capture", "nobody/no-such-model", TEXT, "--out", "x.safetensors"]
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    (line,) = p.stderr.strip().splitlines()
    why = "HF_HUB_OFFLINE is set" if offline else "the hub cannot be reached (127.0.0.1: Connection refused)"
    assert line.startswith(f"attn-tui: nobody/no-such-model: {why} and it is not in the cache; give a local folder")
    assert "HF_HUB_OFFLINE=1" in line
    assert not list(tmp_path.glob("*.safetensors"))


def test_an_existing_file_is_replaced_only_with_force(tiny_folders, tmp_path, capsys):
    require_models()
    folder = str(tiny_folders("gpt2"))
    out = tmp_path / "mine.safetensors"
    out.write_bytes(b"a learner's earlier capture")
    line = refused(capsys, ["capture", folder, TEXT, "--out", str(out)])
    assert line == f"attn-tui: --out {out}: exists; give --force to replace it, or another --out"
    line = refused(capsys, ["capture", folder, TEXT, "--out", str(out), "--open"])
    assert line.endswith(f"; to open it as it is: attn-tui --scenario {out}")
    assert out.read_bytes() == b"a learner's earlier capture" and leftovers(tmp_path) == ["mine.safetensors"]
    assert main(["capture", folder, TEXT, "--out", str(out), "--force"]) == 0
    assert out.read_bytes()[8:9] == b"{" and leftovers(tmp_path) == ["mine.safetensors"]


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_the_text_file_must_be_a_regular_file(tmp_path, capsys, kind):
    require_models()
    path = {"device": "/dev/zero", "fifo": str(tmp_path / "fifo"), "folder": str(tmp_path)}[kind]
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes: a read would wait for ever
    refused(capsys, ["capture", str(tmp_path), "--file", path], f"--file {path}: not a regular file")


def test_a_large_text_file_is_refused_after_a_bounded_read(tmp_path, capsys):
    """A 1 GiB file (sparse): refused, having read 4 MiB and a byte, not the whole file."""
    require_models()
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(2**30)
    tracemalloc.start()
    try:
        refused(capsys, ["capture", str(tmp_path), "--file", str(big)], "larger than 4 MiB")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak


def _pickled_folder(tmp_path, payload: bool):
    """A tiny GPT-2 whose weights are only a pickled pytorch_model.bin; with a payload that would
    create tmp_path/ran if the pickle were run."""
    import torch
    from transformers import AutoModel

    from tests.capture.tiny_models import save_tiny

    folder = save_tiny(tmp_path / ("payload" if payload else "plain"), "gpt2", initializer_range=0.3)
    state = AutoModel.from_pretrained(folder).state_dict()
    (folder / "model.safetensors").unlink()
    if payload:
        state["payload"] = _Payload(tmp_path / "ran")
    torch.save(state, folder / "pytorch_model.bin")
    return folder


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (type(self.marker).touch, (self.marker,))


def test_pickled_weights_are_loaded_only_when_allowed(tmp_path, capsys):
    require_models()
    plain, bad = _pickled_folder(tmp_path, False), _pickled_folder(tmp_path, True)
    out = tmp_path / "o.safetensors"
    for folder in (plain, bad):
        line = refused(capsys, ["capture", str(folder), TEXT, "--out", str(out)])
        assert line.startswith(f"attn-tui: {folder}: its weights are in pytorch_model.bin, a pickle"), line
        assert "--allow-pickle" in line
    line = refused(capsys, ["capture", str(bad), TEXT, "--out", str(out), "--allow-pickle"])
    assert "pytorch_model.bin holds more than weights" in line and "weights-only loader refused it" in line
    assert not (tmp_path / "ran").exists() and not out.exists()
    assert main(["capture", str(plain), TEXT, "--out", str(out), "--allow-pickle"]) == 0  # trusted: loaded
    assert "checked against the model" in capsys.readouterr().out


def test_a_read_only_destination_is_one_line(tiny_folders, tmp_path, capsys, monkeypatch):
    """The folder refuses a new file (EROFS, as a read-only mount does): said before the model loads."""
    require_models()
    from attn_tui.capture import destination, pipeline

    def read_only(*a, **k):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(destination.tempfile, "mkstemp", read_only)
    monkeypatch.setattr(pipeline, "load_model", lambda *a, **k: pytest.fail("the model loaded"))
    out = tmp_path / "ro.safetensors"
    line = refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out)])
    assert line == f"attn-tui: --out {out}: cannot write in {tmp_path} (Read-only file system)"
    assert leftovers(tmp_path) == []


def test_a_full_disk_is_one_line_and_leaves_nothing(tiny_folders, tmp_path, capsys, monkeypatch):
    """The disk fills while the second layer is written (part of it on disk): exit 1, one line, no file."""
    require_models()
    from attn_tui.core.heads.layer_file import LayerFile

    real = LayerFile.add

    def fills(self, layer, arrays):
        real(self, layer, arrays)
        if layer == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(LayerFile, "add", fills)
    out = tmp_path / "full.safetensors"
    capsys.readouterr()
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"attn-tui: output incomplete: --out {out}: cannot write (No space left on device); no file written"
    )
    assert leftovers(tmp_path) == []


def test_a_write_the_file_system_refuses_is_one_line(tiny_folders, tmp_path):
    """A real refused write, not a stand-in: the capture runs in a process whose files may not grow past
    16 KiB (RLIMIT_FSIZE; SIGXFSZ ignored, so the write fails with EFBIG as a full disk fails with
    ENOSPC). The first layer's write fails: exit 1, one line, no file and no partial file left."""
    require_models()
    import resource
    import signal

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))

    out = tmp_path / "out" / "big.safetensors"
    out.parent.mkdir()
    env = os.environ | {"PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-m", "attn_tui", "capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out)]
    p = subprocess.run(argv, capture_output=True, text=True, env=env, preexec_fn=limited, timeout=300)  # noqa: PLW1509
    assert p.returncode == 1, p.stderr
    (line,) = p.stderr.strip().splitlines()
    assert line == f"attn-tui: output incomplete: --out {out}: cannot write (File too large); no file written"
    assert list(out.parent.iterdir()) == []


def test_a_hostile_pickle_under_allow_pickle_is_one_line_with_its_reason(tmp_path, capsys):
    """Issue 52 item 11: a pickle that is not a state dict (here one that would call os.system) under
    --allow-pickle printed torch's two-line UserWarning (its pickle protocol) and "refused it ()": torch
    puts the reason on a line after "WeightsUnpickler error:". One line now, with the reason."""
    require_models()
    import os
    import pickle

    from tests.capture.tiny_models import save_tiny

    class System:
        def __reduce__(self):
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    folder = save_tiny(tmp_path / "hostile", "gpt2")
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(System(), protocol=4))
    line = refused(capsys, ["capture", str(folder), TEXT, "--out", str(tmp_path / "o.safetensors"), "--allow-pickle"])
    assert "weights-only loader refused it (Unsupported operand " in line and "()" not in line, line
    assert not (tmp_path / "ran").exists()


def test_a_config_whose_sizes_the_weights_do_not_have_is_one_line_in_our_words(tmp_path, capsys):
    """Issue 52 item 11: a config.json naming other sizes than the weights ended with transformers'
    "For details look at the above report!", and no report was shown (its logging is quiet here)."""
    require_models()
    import json

    from tests.capture.tiny_models import save_tiny

    folder = save_tiny(tmp_path / "resized", "gpt2")
    config = json.loads((folder / "config.json").read_text())
    config["n_positions"] *= 4  # wpe in the weights keeps the old size
    (folder / "config.json").write_text(json.dumps(config))
    line = refused(capsys, ["capture", str(folder), TEXT, "--out", str(tmp_path / "o.safetensors")])
    assert "its weights do not have the shapes its config asks for" in line and "above report" not in line, line
