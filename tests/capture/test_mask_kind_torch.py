"""The mask kind that capture reads on the model's device (capture.check_torch.mask_kind) against the
core's NumPy reading (core.heads.capture_check.mask_kind, the oracle) on every pattern, in every form a
model hands it: boolean (True = attend), additive float32/bfloat16 with the dtype's min or -inf,
padded rows, NaN and +inf entries, non-square masks, and blocks of rows smaller than the mask."""

from __future__ import annotations

import pytest

from tests.capture.tiny_models import require_models

require_models()

import torch  # noqa: E402

from attn_tui.capture.check_torch import mask_kind as torch_kind  # noqa: E402
from attn_tui.capture.interface import MaskRows  # noqa: E402
from attn_tui.core.heads.capture_check import mask_kind as numpy_kind  # noqa: E402


def allowed(pattern: str, T: int, T_k: int) -> torch.Tensor:
    """(T, T') True where a query may see a key."""
    t, j = torch.arange(T)[:, None], torch.arange(T_k)[None, :]
    if pattern == "causal":
        return j <= t
    if pattern.startswith("window:"):
        W = int(pattern[7:])
        return (j <= t) & (j > t - W)
    if pattern == "none":
        return torch.ones(T, T_k, dtype=torch.bool)
    if pattern == "padded":  # causal, the first two keys padding (a left-padded batch's row)
        return (j <= t) & (j >= 2)
    if pattern == "striped":
        return ((j + t) % 3 != 0) | (j == t)
    raise ValueError(pattern)


def forms(ok: torch.Tensor) -> dict:
    """The same mask as a model may hand it."""
    out = {"bool": ok}
    for name, dtype in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        out[f"{name} min"] = torch.where(ok, 0.0, torch.finfo(dtype).min).to(dtype)
        out[f"{name} -inf"] = torch.where(ok, 0.0, float("-inf")).to(dtype)
    return out


PATTERNS = ["causal", "window:1", "window:3", "none", "padded", "striped"]


@pytest.mark.parametrize("rows", [None, 1, 5])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_device_reading_is_the_oracles(pattern, rows):
    for T, T_k in ((12, 12), (9, 12)):
        for form, m in forms(allowed(pattern, T, T_k)).items():
            want = numpy_kind(MaskRows(m))
            assert torch_kind(m, rows=rows) == want, (pattern, T, T_k, form)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -5.0, 1.0])
def test_an_odd_entry_makes_the_mask_additive_in_both(value):
    m = torch.where(allowed("causal", 10, 10), 0.0, torch.finfo(torch.float32).min)
    m[7, 3] = value
    assert numpy_kind(MaskRows(m)) == "additive"
    assert torch_kind(m, rows=3) == "additive"


def test_the_readings_name_each_pattern():
    """Not only agreement: each pattern gets its own name (a reading that said "additive" to
    everything would agree with itself)."""
    names = {p: torch_kind(allowed(p, 12, 12)) for p in PATTERNS}
    assert names == {
        "causal": "causal",
        "window:1": "window:1",
        "window:3": "window:3",
        "none": "none",
        "padded": "additive",
        "striped": "additive",
    }
