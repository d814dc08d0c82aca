"""The core's small modules against their documented behaviour (written to kill their mutants,
scripts/mutation.sh): core.atomic (errors as OSError with errno, reason and file; the temporary
file hidden beside the target; the folder opened as a folder), core.export (every matrix under
its name, labelled), core.random_scenario (the draws recomputed from numpy's default_rng),
core.matrices (labels and what to edit instead), core.ranks (the float16 tolerance computed
in float64) and core.builtins (the refusal).
"""

from __future__ import annotations

import errno
import math
import os

import numpy as np
import pytest

from attn_tui.core import atomic, export, matrices, ranks, scenario_io
from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.core.edit import EditError
from attn_tui.core.random_scenario import check_params, random_scenario
from attn_tui.core.scenario import Scenario


# -- atomic ------------------------------------------------------------------------------------
def oserror(fn, *args):
    with pytest.raises(OSError) as e:
        fn(*args)
    return e.value


def test_target_of_refuses_with_errno_reason_and_file(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    e = oserror(atomic.target_of, loop)
    assert (e.errno, e.strerror, e.filename) == (
        errno.ELOOP,
        f"cannot follow the symlink ({os.strerror(errno.ELOOP)})",
        str(loop),
    )
    e = oserror(atomic.target_of, tmp_path)
    assert type(e) is IsADirectoryError
    assert (e.errno, e.strerror, e.filename) == (21, "is a folder; type a file name inside it", str(tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    e = oserror(atomic.target_of, fifo)
    assert (e.errno, e.strerror, e.filename) == (
        22,
        "is not a regular file (a FIFO, device or socket); not replaced",
        str(fifo),
    )
    dangling = tmp_path / "link"
    os.symlink(tmp_path / "later.toml", dangling)
    assert atomic.target_of(dangling) == tmp_path / "later.toml"  # a new file behind the link


def test_the_temporary_file_is_hidden_beside_the_target_and_the_folder_opened_as_one(tmp_path, monkeypatch):
    target = tmp_path / "s.toml"
    replaced, opened = [], []
    real_replace, real_open = os.replace, os.open
    monkeypatch.setattr(os, "replace", lambda a, b: replaced.append(a) or real_replace(a, b))
    monkeypatch.setattr(os, "open", lambda p, flags, *a: opened.append((str(p), flags)) or real_open(p, flags, *a))
    atomic.write_atomic(target, b"x = 1\n")
    assert target.read_bytes() == b"x = 1\n"
    (tmp,) = replaced
    assert os.path.dirname(tmp) == str(tmp_path) and os.path.basename(tmp).startswith(".s.toml.")
    folder_flags = [f for p, f in opened if p == str(tmp_path)]
    assert folder_flags and all(f & os.O_DIRECTORY and f & os.O_ACCMODE == os.O_RDONLY for f in folder_flags)


# -- export ------------------------------------------------------------------------------------
def test_export_writes_every_matrix_under_its_name_with_labels(tmp_path, read_csv):
    s = builtin("cross-attention")
    tr = s.run()
    paths = export.export(s, tr, tmp_path / "a" / "b")  # csv by default; missing parents made
    names = ["X", "W_Q", "W_K", "W_V", "Y", "Q", "K", "V", "S", "M", "S_masked", "A", "O"]
    assert [p.name for p in paths] == [f"{n}.csv" for n in names]
    for n, p in zip(names, paths):
        want = getattr(tr, n) if hasattr(tr, n) and n not in ("X", "Y", "W_Q", "W_K", "W_V") else getattr(s, n)
        assert np.array_equal(read_csv(p), want), n
        assert b"\r" not in p.read_bytes()  # lines end in \n (csv's default is \r\n)
    header = (tmp_path / "a" / "b" / "Q.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "," + ",".join(f"k{j + 1}" for j in range(s.d_k))
    assert export.matrices(s, tr)["K"][1] == s.keys
    with pytest.raises(ValueError) as e:
        export.export(s, tr, tmp_path, fmt="xls")
    assert str(e.value) == "format: 'xls' is not one of csv, npy"


def test_a_scenario_past_512_tokens_is_not_exported_nor_saved_as_toml(tmp_path):
    big = Scenario(Q=np.zeros((600, 1)), K=np.zeros((700, 1)), mask="none")
    with pytest.raises(ValueError) as e:
        export.export(big, None, tmp_path)
    mib = round(8 * 600 * 700 / 2**20)
    assert str(e.value) == (
        f"700 tokens: matrices are exported up to 512 tokens (S alone would be {mib} MiB in float64 here); "
        "`attn-tui report --scenario FILE --json` summarises it"
    )
    with pytest.raises(ValueError) as e:
        scenario_io.save(big, tmp_path / "big.toml")
    assert str(e.value) == (
        "700 tokens: a TOML scenario holds at most 512; keep the arrays in an .npz or .safetensors file "
        "(docs/FILES.md: Your own arrays)"
    )
    at = Scenario(Q=np.zeros((512, 1)), K=np.zeros((512, 1)), mask="none")
    assert len(export.export(at, at.run(), tmp_path / "npy", fmt="npy")) == 8


# -- random_scenario ------------------------------------------------------------------------
def test_random_scenario_is_numpy_s_draws_in_order():
    s = random_scenario(T=5, d_model=3, d_k=2, d_v=6, seed=9, mask="none")
    rng = np.random.default_rng(9)
    X = rng.standard_normal((5, 3))
    W = [rng.standard_normal((3, n)) / math.sqrt(3) for n in (2, 2, 6)]
    assert np.array_equal(s.X, X)
    for got, want in zip((s.W_Q, s.W_K, s.W_V), W):
        assert np.allclose(got, want, rtol=1e-15, atol=0)
    assert s.mask == "none" and s.tokens == ("t1", "t2", "t3", "t4", "t5") and s.features == ("f1", "f2", "f3")
    assert s.title == "Random: T=5, d_model=3, d_k=2, d_v=6, seed=9 (Gaussian; q·k has variance d_k)"
    d = random_scenario()
    assert (d.T, d.d_model, d.d_k, d.d_v) == (8, 8, 4, 4) and np.array_equal(
        d.X, np.random.default_rng(0).standard_normal((8, 8))
    )


def test_check_params_refusals():
    assert check_params(T=" 12 ")["T"] == 12
    for kw, message in [
        ({"wings": 1}, "'wings': unknown parameter; use T, d_model, d_k, d_v, seed"),
        ({"T": "x"}, "T: 'x' is not a whole number; type one from 1 to 512"),
        ({"T": True}, "T: True must be a whole number from 1 to 512"),
    ]:
        with pytest.raises(EditError) as e:
            check_params(**kw)
        assert str(e.value) == message


# -- matrices, builtins ------------------------------------------------------------------------
def test_labels_and_what_to_edit_instead():
    cross = builtin("cross-attention")
    self_ = builtin("lesson-pipeline")
    qk = builtin("lesson-handcrafted")
    assert matrices.labels(cross, "tokens") == cross.tokens and matrices.labels(cross, "keys") == cross.keys
    assert matrices.labels(cross, "features") == cross.features
    assert matrices.labels(cross, "d") == ("d1", "d2", "d3", "d4") and matrices.labels(cross, "v")[-1] == "v4"
    assert matrices.how_computed(self_, "K") == "K = X·W_K: edit X or W_K"
    assert matrices.how_computed(cross, "V") == "V = Y·W_V: edit Y or W_V"
    tail = ", or change c (+/-, 0) or the scaling (u)"
    assert matrices.how_computed(cross, "S") == "S = c·Q·Kᵀ/√d_k: edit X, W_Q, W_K, Y" + tail
    assert matrices.how_computed(self_, "S") == "S = c·Q·Kᵀ/√d_k: edit X, W_Q, W_K" + tail
    assert matrices.how_computed(qk, "O") == "O = A·V: edit V or what shapes A (Q, K, c, mask)"
    assert matrices.how_computed(self_, "X") == "edit the inputs instead"
    assert matrices.how_computed(self_, "Z") == "edit the inputs instead"
    with pytest.raises(ValueError) as e:
        builtin("nope")
    assert str(e.value) == f"scenario: no built-in named 'nope'; built-ins: {', '.join(BUILTINS)}"


# -- ranks ---------------------------------------------------------------------------------------
def test_the_float16_tolerance_is_computed_in_float64():
    """|Q||K|ᵀ of float16 factors overflows float16 (300·300 > 65504): the tolerance must not."""
    Q = np.array([[300.0, 1.0], [1.0, 300.0]], dtype=np.float16)
    K = Q.copy()
    S = (Q.astype(np.float64) @ K.astype(np.float64).T / math.sqrt(2)).astype(np.float16)
    B = np.abs(Q.astype(np.float64)) @ np.abs(K.astype(np.float64)).T / math.sqrt(2)
    sigma = np.linalg.svd(B, compute_uv=False)[0]
    want = (2 + 2) * (float(np.finfo(np.float32).eps) * sigma + 2 * float(np.finfo(np.float16).smallest_subnormal))
    got = ranks.score_tolerance(S, Q, K, 1 / math.sqrt(2))
    assert math.isfinite(got) and got == pytest.approx(want, rel=1e-12)


# -- scenario ------------------------------------------------------------------------------------
def test_scenario_matrices_are_read_only_float64_and_shared_between_copies():
    f32 = np.ones((2, 1), dtype=np.float32)
    f32.setflags(write=False)  # read-only and owning its data, but not float64: converted
    s = Scenario(Q=f32, K=f32)
    assert s.Q.dtype == np.float64 and not s.Q.flags.writeable
    t = s.with_(c=2.0)
    assert t.Q is s.Q and t.K is s.K  # a with_() copy shares the immutable matrices


def test_the_export_refusal_sizes_s_in_the_scenario_s_dtype(tmp_path):
    big = Scenario(Q=np.zeros((600, 1)), K=np.zeros((700, 1)), mask="none", dtype="float16")
    with pytest.raises(ValueError) as e:
        export.export(big, None, tmp_path)
    assert f"(S alone would be {round(2 * 600 * 700 / 2**20)} MiB in float16 here)" in str(e.value)
