"""Unit tests of core/modes.py, core/random_scenario.py and core/export.py."""

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.edit import EditError, add_key_token
from attn_tui.core.export import export
from attn_tui.core.modes import (
    causal_allowed,
    explanations,
    set_cross,
    set_dtype,
    set_fill,
    set_mask,
    set_padding,
    summary,
)
from attn_tui.core.random_scenario import random_scenario


@pytest.fixture
def pipe():
    return builtin("lesson-pipeline")


def test_masks(pipe):
    assert set_mask(pipe, "none").run().A[0, 1] > 0
    w = set_mask(pipe, "window", 2)
    assert w.window == 2 and w.run().A[4, :3].sum() == 0
    with pytest.raises(EditError, match="window"):
        set_mask(pipe, "window", 0)


def test_padding_fill_nan_explained(pipe):
    s = set_fill(set_padding(pipe, [1]), "-inf")
    tr = s.run()
    assert tr.nan_rows == (0,) and np.isnan(tr.A[0]).all()
    lines = explanations(s, tr)
    assert any("-inf - (-inf) = NaN" in ln and "t1 mat" in ln for ln in lines)
    fin = set_fill(s, "-1e9")
    assert not fin.run().nan_rows
    assert any("finite fill" in ln for ln in explanations(fin, fin.run()))
    assert set_padding(s, []).padding == ()
    with pytest.raises(EditError, match="outside"):
        set_padding(pipe, [9])


def test_float16_fill_overflows(pipe):
    s = set_dtype(pipe, "float16")
    tr = s.run()
    assert np.isneginf(tr.M[0, 1])
    assert any("overflows to -inf" in ln and "65504" in ln for ln in explanations(s, tr))
    m = set_fill(s, "min")
    assert np.isfinite(m.run().M).all() and not any("overflows" in ln for ln in explanations(m, m.run()))
    assert "float16" in summary(s) and "fill -1e9" in summary(s)
    unmasked = s.with_(mask="none")  # no masked cell: the fill is never used, nothing to say
    assert not unmasked.run().blocked.any()
    assert not any("overflows" in ln for ln in explanations(unmasked, unmasked.run()))


def test_cross_and_causal(pipe):
    s, _ = set_cross(pipe, True)
    assert s.mask == "causal" and causal_allowed(s)[0]  # T' = T: allowed, with a reason
    t = add_key_token(set_mask(s, "none"))
    ok, why = causal_allowed(t)
    assert not ok and "own 6 positions" in why
    with pytest.raises(EditError, match="not offered"):
        set_mask(t, "causal")
    assert t.run().A.shape == (5, 6) and "cross 5x6" in summary(t)
    off, _ = set_cross(t, False)
    assert not off.cross and off.T_k == 5
    with pytest.raises(EditError, match="needs X"):
        set_cross(builtin("lesson-handcrafted"), True)


def test_random_seeded_and_sized():
    a, b = random_scenario(T=16, seed=3), random_scenario(T=16, seed=3)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.W_V, b.W_V)
    assert not np.array_equal(a.X, random_scenario(T=16, seed=4).X)
    big = random_scenario(T=256, d_model=16, d_k=8, d_v=8, seed=1)
    assert big.run().A.shape == (256, 256)
    with pytest.raises(EditError, match="T: 0 must be"):
        random_scenario(T=0)


def test_random_variance_matches_lesson():
    s = random_scenario(T=256, d_model=64, d_k=64, seed=0, mask="none")
    Q, K, _ = s.qkv()
    raw = (Q @ K.T).ravel()
    assert 0.5 < raw.var() / 64 < 2.0  # Var(q·k) ≈ d_k


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_export_bit_exact(tmp_path, pipe, fmt, read_csv):
    s = set_fill(set_padding(pipe, [1]), "-inf")
    tr = s.run()
    paths = export(s, tr, tmp_path / "out", fmt)
    names = {p.stem for p in paths}
    assert {"X", "W_Q", "Q", "S", "M", "A", "O"} <= names
    read = read_csv if fmt == "csv" else np.load
    A = read(tmp_path / "out" / f"A.{fmt}")
    assert np.array_equal(A, tr.A, equal_nan=True)
    assert np.array_equal(read(tmp_path / "out" / f"M.{fmt}"), tr.M)
    with pytest.raises(FileExistsError, match="A|X|W_Q"):
        export(s, tr, tmp_path / "out", fmt)
    export(s, tr, tmp_path / "out", fmt, overwrite=True)


def test_export_csv_labels_and_dtype(tmp_path, pipe):
    s = set_dtype(pipe, "float16")
    export(s, s.run(), tmp_path, "csv")
    head = (tmp_path / "A.csv").read_text().splitlines()[0]
    assert head == ",t1 mat,t2 was,t3 soft,t4 it,t5 was"
    export(s, s.run(), tmp_path / "n", "npy")
    assert np.load(tmp_path / "n" / "A.npy").dtype == np.float16
    with pytest.raises(ValueError, match="is a file"):
        export(s, s.run(), tmp_path / "A.csv", "npy")


def test_export_files_are_ordinary(tmp_path, pipe):
    import os
    import stat

    mask = os.umask(0o022)
    try:
        paths = export(pipe, pipe.run(), tmp_path, "csv")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(paths[0].stat().st_mode) == 0o644
