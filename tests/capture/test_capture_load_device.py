"""Where the weights are loaded (issue 48: the host's peak on a GPU). On a device other than the CPU,
``load_model`` asks transformers to load the weights straight onto it (``device_map=device``), so the
host never holds them; on the CPU it loads them there; ``--device-map auto`` hands placement to
accelerate. The recorded call says which; a real load through ``device_map`` (with the CPU as the
device) shows transformers takes a device name there with the capture's attention."""

from __future__ import annotations

import pytest

from tests.capture.tiny_models import require_models


class _Recorded:
    def __init__(self):
        self.opts, self.moved_to = None, None

    def from_pretrained(self, model_id, **opts):
        self.opts = opts
        return self

    def to(self, device):
        self.moved_to = device
        return self

    def eval(self):
        return self


@pytest.mark.parametrize(
    ("device", "device_map", "placed", "moved_to"),
    [
        ("cuda", None, "cuda", None),
        ("cuda:1", None, "cuda:1", None),
        ("cpu", None, None, "cpu"),
        ("auto", "auto", "auto", None),
    ],
)
def test_the_weights_load_where_the_model_runs(monkeypatch, device, device_map, placed, moved_to):
    require_models()
    from attn_tui.capture import load

    rec = _Recorded()
    monkeypatch.setattr(load, "auto_class", lambda config: rec)
    assert load.load_model("m", object(), device=device, device_map=device_map) is rec
    assert rec.opts.get("device_map") == placed
    assert rec.moved_to == moved_to


def test_transformers_takes_a_device_name_as_the_device_map(tiny_folders):
    require_models()
    from transformers import AutoConfig

    from attn_tui.capture.load import load_model

    folder = str(tiny_folders("llama"))
    model = load_model(folder, AutoConfig.from_pretrained(folder), device="cpu", device_map="cpu")
    assert {p.device.type for p in model.parameters()} == {"cpu"}
    assert not model.training
