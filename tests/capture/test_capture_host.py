"""The host holds no T x T array of a capture without --keep-A (issue 48 item 3): the check runs in
torch where the model ran (capture.check_torch) and only Q, K, V and W_O are brought to the host
for the file. Every tensor the capture brings to NumPy (capture.interface.to_numpy, as the sink and
the mask reader call it) is recorded, at a T (600) where a layer's A (4 x 600 x 600) would show; with
--keep-A the same spy sees the A it keeps, so it can see one. What it brings comes a head at a time
(capture.interface.ByHead): the host never holds a whole layer's Q, K, V or A."""

from __future__ import annotations

import pytest

from attn_tui.cli import main
from tests.capture.tiny_models import CORPUS, require_models


@pytest.mark.parametrize("keep_A", [False, True])
def test_no_T_by_T_array_reaches_the_host_without_keep_A(tiny_folders, tmp_path, monkeypatch, keep_A):
    require_models()
    from attn_tui.capture import interface

    shapes = []
    real = interface.to_numpy

    def spy(t):
        a = real(t)
        shapes.append(a.shape)
        return a

    monkeypatch.setattr(interface, "to_numpy", spy)
    folder = str(tiny_folders("llama", num_hidden_layers=2, max_position_embeddings=1024))
    out = tmp_path / "long.safetensors"
    argv = ["capture", folder, " ".join(CORPUS * 8), "--out", str(out)] + (["--keep-A"] if keep_A else [])
    assert main(argv) == 0
    assert not [s for s in shapes if len(s) >= 3], shapes  # one head at a time: never a whole layer's (H, T, d)
    T = max(s[0] for s in shapes if len(s) == 2)  # a head's Q (T, d_k)
    assert T >= 600
    square = [s for s in shapes if s == (T, T)]
    assert square == ([(T, T)] * 8 if keep_A else []), square  # 2 layers x 4 heads' A, with --keep-A only
