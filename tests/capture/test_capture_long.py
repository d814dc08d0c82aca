"""Long texts (issue 41 item 3) and --device-map auto (item 4): no 4,096-token ceiling, the limit
is one layer's eager attention against free memory, said before the weights load; a model placed
by accelerate is captured as any other."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.cli import explorer, main
from attn_tui.core.heads.door import open_heads
from attn_tui.core.limits import MAX_T
from tests.capture.test_capture_families import TEXT, eager_attentions
from tests.capture.test_capture_refusals import leftovers, refused
from tests.capture.tiny_models import require_models

GIB = 2**30


class Config:  # what limits.check_tokens reads of a model's config
    def __init__(self, heads):
        self.num_attention_heads = heads


def test_the_memory_limit_and_its_figures():
    require_models()
    from attn_tui.capture.limits import check_tokens, eager_bytes, most_tokens

    cfg = Config(32)
    # 32 heads x 16,384^2 cells: the scores and their softmax in float32 (8 bytes a cell), the mask (4)
    assert eager_bytes(32, 16384, "float32") == 32 * 16384**2 * 8 + 16384**2 * 4
    line = check_tokens(cfg, 16384, "bfloat16", False, free=8 * GIB)
    need = (32 * 6 + 2) * 16384**2 / GIB
    assert line.startswith(f"TEXT: T = 16,384: one layer's eager attention needs {need:.1f} GiB (32 heads, bfloat16)")
    most = most_tokens(32, "bfloat16", 8 * GIB)
    assert f"8.0 GiB is free here, enough for at most {most:,} tokens" in line
    assert eager_bytes(32, most, "bfloat16") <= 8 * GIB < eager_bytes(32, most + 1, "bfloat16")
    assert check_tokens(cfg, most, "bfloat16", False, free=8 * GIB) is None
    assert check_tokens(cfg, 16384, "bfloat16", False, free=None) is None  # free memory unknown: not judged
    line = check_tokens(cfg, MAX_T + 1, "float32", False, free=None)
    assert line == f"TEXT: {MAX_T + 1:,} tokens; a multi-head file's readers take at most {MAX_T:,} (a shorter text)"
    assert check_tokens(cfg, 4096, "float32", True, free=None) is None
    assert check_tokens(cfg, 4097, "float32", True, free=None).startswith("--keep-A: 4,097 tokens; a file keeps")


def test_too_long_for_memory_is_said_before_the_weights_load(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    from attn_tui.capture import pipeline

    monkeypatch.setattr(pipeline, "free_bytes", lambda model, device: 8192)  # 8 KiB free, the weights aside
    monkeypatch.setattr(pipeline, "load_model", lambda *a, **k: pytest.fail("the weights loaded"))
    out = tmp_path / "x.safetensors"
    line = refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out)])
    T = int(line.split("T = ")[1].split(":")[0])
    need = (4 * 8 + 4) * T * T  # 4 heads: float32 scores and softmax (8 bytes a cell), the mask (4)
    assert f"one layer's eager attention needs {need / 1024:.0f} KiB (4 heads, float32); 8 KiB is free here" in line
    assert "enough for at most 15 tokens (a shorter text)" in line  # 15^2 x 36 bytes <= 8 KiB < 16^2 x 36
    assert leftovers(tmp_path) == []


def test_a_text_longer_than_4096_tokens(tmp_path, capsys):
    """A one-head, two-layer Llama on 4,500 tokens: captured (the ceiling of 4,096 is gone), every head
    matching the eager model; `heads FILE --layer 1` reads it; the explorer's door opens it; --keep-A
    is refused for it (a stored A is at most 2^24 cells a head)."""
    require_models()
    from tests.capture.tiny_models import byte_level_tokenizer, save_tiny

    folder = save_tiny(
        tmp_path / "long",
        "llama",
        num_attention_heads=1,
        num_key_value_heads=1,
        hidden_size=8,
        max_position_embeddings=8192,
        initializer_range=0.3,
    )
    tok = byte_level_tokenizer()
    ids = np.random.default_rng(0).integers(1, len(tok), 4500)
    text = tok.decode(ids.tolist())
    out = tmp_path / "long.safetensors"
    assert main(["capture", str(folder), text, "--out", str(out)]) == 0
    src = open_heads(str(out))
    assert src.T > 4096 and not src.has("A")
    _, own, _, _ = eager_attentions(folder, text)
    for layer in range(2):
        A, _ = src.weights_block(layer, 0)(src.T - 64, src.T)  # the last rows: they see every key
        assert np.abs(A - own[layer][0][src.T - 64 :]).max() < 1e-5  # float32 (the families' bound: ~1e-5 here)
    del own
    capsys.readouterr()
    assert main(["heads", str(out), "--layer", "1"]) == 0
    assert f"T = {src.T} query tokens" in capsys.readouterr().out
    scenario, head = explorer.opened(
        type("A", (), {"run_scenario": str(out), "run_tokens": None, "theme": None, "title_first": True})
    )
    assert head is not None and scenario.T == src.T
    line = refused(capsys, ["capture", str(folder), text, "--out", str(tmp_path / "a.safetensors"), "--keep-A"])
    assert line.startswith(f"attn-tui: --keep-A: {src.T:,} tokens; a file keeps the model's A for at most 4,096")


def test_device_map_auto_on_the_cpu(tiny_folders, tmp_path, capsys):
    """--device-map auto: accelerate places the model (here all of it on the CPU); every head is the
    eager model's, and the file says where each part ran."""
    require_models()
    folder = tiny_folders("llama", initializer_range=0.3)
    out = tmp_path / "dm.safetensors"
    assert main(["capture", str(folder), TEXT, "--out", str(out), "--device-map", "auto"]) == 0
    src = open_heads(str(out))
    assert src.provenance["device"] == "auto" and set(src.provenance["device_map"].values()) == {"cpu"}
    _, own, _, _ = eager_attentions(folder, TEXT)
    for layer in range(2):
        for head in range(4):
            A, _ = src.weights_block(layer, head)(0, src.T)
            assert np.abs(A - own[layer][head]).max() < 1e-5  # float32 (the families' bound: ~2e-5 here)
    other = str(tmp_path / "b.safetensors")
    line = refused(capsys, ["capture", str(folder), TEXT, "--out", other, "--device-map", "x"])
    assert line == "attn-tui: --device-map: 'x'; use auto (accelerate places the layers)"
