"""A capture without the model's A (the default): every reader reports it as a --keep-A capture of
the same text; a file written before this change (A kept, no per-head figures) still opens and
reports; and the capture's own arrays never hold more than about one layer (nothing stacks
[L, H, T, ...])."""

from __future__ import annotations

import json
import tracemalloc
import weakref
from pathlib import Path

from attn_tui.cli import explorer, main
from attn_tui.core.heads.capture_check import stored_by_head, stored_check
from attn_tui.core.heads.door import open_heads
from tests.capture.tiny_models import require_models
from tests.core.headtools import own_weights_diff

TEXT = "the cat sat on the mat. The cat sat on the log, the dog sat."


def test_reports_are_the_same_with_and_without_A(tiny_folders, tmp_path, capsys):
    require_models()
    folder = str(tiny_folders("llama", initializer_range=0.3))
    lean, full = tmp_path / "lean.safetensors", tmp_path / "full.safetensors"
    assert main(["capture", folder, TEXT, "--out", str(lean)]) == 0
    assert main(["capture", folder, TEXT, "--out", str(full), "--keep-A"]) == 0
    assert not open_heads(str(lean)).has("A") and open_heads(str(full)).has("A")
    assert lean.stat().st_size < full.stat().st_size
    capsys.readouterr()
    reports = []
    for path in (lean, full):
        for extra in ([], ["--json"], ["--layer", "1"]):
            assert main(["heads", str(path), *extra]) == 0
            reports.append(capsys.readouterr().out)
    assert reports[:3] == reports[3:]  # text, JSON and one layer: the same words and figures
    rows = json.loads(reports[1])["heads"]
    assert len(rows) == 8 and all(r["own_A_max_abs_diff"] >= 0 for r in rows)  # each head's figure, in both
    assert "against the model's own A: max |difference|" in reports[0]
    assert "checked against the model: max |ΔA|" in reports[0]


OLD = Path(__file__).with_name("data") / "captured_before_41.safetensors"


def test_a_file_written_before_still_opens(capsys):
    """A file the capture wrote before this change (commit 6fe6f86, a tiny random GPT-2 on 'the cat sat
    on the mat. The cat sat.': A kept, no per-head figures, the check then printed max |ΔA| 2e-07):
    `heads` recomputes each head's figure from its A, `report --layer/--head` and the explorer's door
    open it, and its stored figure is shown. Needs no torch: the readers are NumPy."""
    src = open_heads(str(OLD))
    assert src.has("A") and stored_by_head(src) is None
    assert stored_check(src).words() == "checked against the model: max |ΔA| 2e-07 over 2 × 4 heads"
    capsys.readouterr()
    assert main(["heads", str(OLD), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["heads"]
    want = [own_weights_diff(src, r["layer"], r["head"]) for r in rows]
    assert [r["own_A_max_abs_diff"] for r in rows] == want and max(want) == src.provenance["max_abs_dA"]
    assert main(["heads", str(OLD)]) == 0
    assert "checked against the model: max |ΔA| 2e-07 over 2 × 4 heads" in capsys.readouterr().out
    assert main(["report", "--scenario", str(OLD), "--layer", "1", "--head", "2"]) == 0
    args = type("A", (), {"run_scenario": str(OLD), "run_tokens": None, "theme": None, "title_first": True})
    scenario, head = explorer.opened(args)
    assert head is not None and scenario.T == src.T


def test_the_capture_holds_about_one_layer(tiny_folders, tmp_path, monkeypatch):
    """8 layers of 4 heads on 600 tokens. When a layer reaches the capture, no array of an earlier
    layer is alive (weak references to what each layer handed over: Q, K, V, the model's A); and
    NumPy's allocations (tracemalloc sees them) peak under two layers' A, where every layer's A would be
    eight (or every layer's float64 mask, as the capture held before, four)."""
    require_models()
    from attn_tui.capture import sink
    from tests.capture.tiny_models import CORPUS

    refs, alive_at = [], []
    real = sink.LayerSink.__call__

    def spy(self, idx, layer):
        alive_at.append(sum(r() is not None for r in refs))
        refs.extend(weakref.ref(x) for x in (layer.Q, layer.K, layer.V, layer.A))
        return real(self, idx, layer)

    monkeypatch.setattr(sink.LayerSink, "__call__", spy)
    folder = str(tiny_folders("llama", num_hidden_layers=8, max_position_embeddings=1024))
    out = tmp_path / "long.safetensors"
    tracemalloc.start()
    try:
        assert main(["capture", folder, " ".join(CORPUS * 8), "--out", str(out)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    src = open_heads(str(out))
    assert src.T >= 600 and src.n_layers == 8
    assert alive_at == [0] * 8
    one_layer_A = src.n_heads * src.T * src.T * 4  # float32
    assert peak < 2 * one_layer_A, (peak, one_layer_A)
