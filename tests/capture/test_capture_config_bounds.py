"""An absurd config is refused before any weight loads, in the project's words (issue 52 item 10):
n_layer 100,000 over a folder whose weights hold 2 layers took 4 min 25 s and 3.3 GB, then said
'cannot compute this scenario (MemoryError)'; a config whose parameters x bytes exceed the memory
free here is refused naming both. No 'look at the above report!' (transformers' words)."""

from __future__ import annotations

import json
import shutil

from attn_tui.cli import main
from tests.capture.tiny_models import require_models

TEXT = "the cat sat on the mat"


def _edited(tiny_folders, tmp_path, **over):
    folder = tmp_path / "m"
    shutil.copytree(tiny_folders("gpt2"), folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps(config | over))
    return str(folder)


def _refused(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "look at the above report" not in out.err + out.out, out
    return lines[0]


def test_more_layers_than_the_weights_hold_is_refused_before_loading(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    from attn_tui.capture import pipeline

    monkeypatch.setattr(pipeline, "load_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("loaded")))
    folder = _edited(tiny_folders, tmp_path, n_layer=100_000)
    line = _refused(capsys, ["capture", folder, TEXT, "--out", str(tmp_path / "x.safetensors")])
    assert line == (
        f"attn-tui: {folder}: its config says 100,000 layers, but its weights (model.safetensors) hold 2; "
        "a config and its weights go together"
    )
    assert not (tmp_path / "x.safetensors").exists()


def test_more_parameters_than_memory_is_refused_before_loading(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    from attn_tui.capture import limits, pipeline

    monkeypatch.setattr(pipeline, "load_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("loaded")))
    monkeypatch.setattr(limits, "available_bytes", lambda: 8 * 2**30)  # a machine with 8 GiB free
    folder = _edited(tiny_folders, tmp_path, n_embd=65536, n_head=512)  # 2 layers as wide as no machine holds
    params = limits.parameters_of(
        type("C", (), {"num_attention_heads": 512, "hidden_size": 65536, "num_hidden_layers": 2, "vocab_size": 300})()
    )
    assert params > 2 * 2**30  # > 8 GiB in float32
    line = _refused(capsys, ["capture", folder, TEXT, "--out", str(tmp_path / "x.safetensors")])
    assert line.startswith(f"attn-tui: {folder}: its config describes about ") and "parameters, " in line
    assert line.endswith("in float32; 8.0 GiB is free here (a smaller model, or --dtype bfloat16)"), line


def test_a_file_the_readers_would_refuse_is_refused_before_the_forward(tiny_folders, tmp_path, capsys, monkeypatch):
    """The readers' one size rule (core.reader_sizes), asked from the config and the token count
    before any weight loads: capture never writes a file the project then refuses to open."""
    require_models()
    from attn_tui.capture import limits, pipeline
    from attn_tui.core.reader_sizes import reader_problem

    monkeypatch.setattr(pipeline, "load_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("loaded")))
    monkeypatch.setattr(limits, "available_bytes", lambda: 2**50)  # memory is not what refuses it here
    folder = _edited(tiny_folders, tmp_path, n_embd=16400, n_head=16)
    line = _refused(capsys, ["capture", folder, TEXT, "--out", str(tmp_path / "x.safetensors")])
    T = int(line.split("its file of ")[1].split(" tokens")[0])
    rule = reader_problem(T, T, 1025, 1025, 16400, heads=16)
    assert line == f"attn-tui: {folder}: its file of {T:,} tokens would be refused by every reader: {rule}"
    assert rule == "d_model: width 16400; widths (d_model, d_k, d_v) are at most 16,384"
