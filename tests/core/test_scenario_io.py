"""Scenario files: save/load round trips bit for bit; saving is atomic and careful."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_tui.core import BUILTINS, Scenario, builtin
from attn_tui.core.matrices import INPUTS
from attn_tui.core.scenario_io import ScenarioError, dumps, load, loads, resolve, save

ANY_FLOAT = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


def same(a: Scenario, b: Scenario):
    """Bit-exact equality of every matrix and setting."""
    for name in INPUTS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.shape == y.shape and x.tobytes() == y.tobytes(), name  # bits, -0.0 included
    for key in (
        "title",
        "tokens",
        "features",
        "key_tokens",
        "mask",
        "padding",
        "window",
        "fill",
        "c",
        "scaled",
        "dtype",
    ):
        assert getattr(a, key) == getattr(b, key), key


@st.composite
def scenarios(draw):
    T = draw(st.integers(1, 5))
    d_k = draw(st.integers(1, 4))
    settings_ = dict(
        title=draw(TEXT),
        mask=draw(st.sampled_from(["causal", "none"])),
        fill=draw(st.sampled_from(["-1e9", "-inf", "min"])),
        c=draw(st.floats(1e-3, 1e3)),
        scaled=draw(st.booleans()),
        dtype=draw(st.sampled_from(["float64", "float32", "float16"])),
        tokens=tuple(draw(st.lists(TEXT, min_size=T, max_size=T))),
    )
    if draw(st.booleans()):
        T_k = draw(st.integers(1, 5))
        Q = draw(arrays(np.float64, (T, d_k), elements=ANY_FLOAT))
        K = draw(arrays(np.float64, (T_k, d_k), elements=ANY_FLOAT))
        V = draw(st.none() | arrays(np.float64, (T_k, 2), elements=ANY_FLOAT))
        pad = tuple(draw(st.lists(st.integers(1, T_k), max_size=2, unique=True)))
        return Scenario(Q=Q, K=K, V=V, padding=pad, **settings_)
    d_model = draw(st.integers(1, 4))
    mats = {
        n: draw(arrays(np.float64, shape, elements=ANY_FLOAT))
        for n, shape in (("X", (T, d_model)), ("W_Q", (d_model, d_k)), ("W_K", (d_model, d_k)), ("W_V", (d_model, 3)))
    }
    return Scenario(**mats, **settings_)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_dumps_loads_bit_exact(s):
    same(loads(dumps(s)), s)
    assert dumps(loads(dumps(s))) == dumps(s)


def test_save_load_seeded_random_matrices(tmp_path):
    rng = np.random.default_rng(2024)
    for i in range(20):
        X = rng.normal(0, 10.0 ** rng.integers(-8, 8), (5, 6))
        W = [rng.standard_normal((6, 4)) * 10.0 ** rng.integers(-300, 300) for _ in range(3)]
        s = Scenario(X=X, W_Q=W[0], W_K=W[1], W_V=W[2], c=float(rng.uniform(0.1, 3)))
        same(load(save(s, tmp_path / f"s{i}.toml")), s)


@pytest.mark.parametrize("name", list(BUILTINS))
def test_builtins_round_trip(tmp_path, name):
    s = builtin(name)
    same(load(save(s, tmp_path / f"{name}.toml")), s)
    np.testing.assert_array_equal(load(tmp_path / f"{name}.toml").run().A, s.run().A)


def test_save_refuses_overwrite_unless_asked(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text("precious\n")
    with pytest.raises(FileExistsError, match="already exists"):
        save(builtin("lesson-pipeline"), f)
    assert f.read_text() == "precious\n"
    save(builtin("lesson-pipeline"), f, overwrite=True)
    same(load(f), builtin("lesson-pipeline"))
    assert sorted(os.listdir(tmp_path)) == ["mine.toml"]  # no temporary file left behind


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    f = tmp_path / "mine.toml"
    save(builtin("lesson-handcrafted"), f)
    before = f.read_bytes()
    import attn_tui.core.scenario_write as sio  # save's dumps (scenario_io re-exports both)

    def boom(s):
        raise RuntimeError("disk full")

    monkeypatch.setattr(sio, "dumps", boom)
    with pytest.raises(RuntimeError):
        save(builtin("lesson-pipeline"), f, overwrite=True)
    assert f.read_bytes() == before  # the old file is intact
    assert sorted(os.listdir(tmp_path)) == ["mine.toml"]


def test_resolve_builtin_and_file(tmp_path):
    same(resolve("lesson-pipeline"), builtin("lesson-pipeline"))
    f = save(builtin("cross-attention"), tmp_path / "x.toml")
    same(resolve(str(f)), builtin("cross-attention"))
    with pytest.raises(ScenarioError):
        resolve("lesson-pipelin")


def test_hand_written_file_with_defaults(tmp_path):
    f = tmp_path / "hand.toml"
    f.write_text(
        '# a comment\ntitle = "mine"\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\npadding = [2]\nfill = "-inf"\n',
        encoding="utf-8",
    )
    s = load(f)
    assert (s.mask, s.fill, s.c, s.scaled, s.dtype, s.padding) == ("causal", "-inf", 1.0, True, "float64", (2,))
    assert s.tokens == ("t1", "t2")
    np.testing.assert_array_equal(s.run().V, np.eye(2))  # V defaults to the identity
    assert loads("fill = -1e9\n" + f.read_text().replace('fill = "-inf"\n', "")).fill == "-1e9"


def test_saved_scenario_has_ordinary_permissions(tmp_path):
    """An atomic save must not leave mkstemp's owner-only 0600 on the user's file."""
    import os

    from attn_tui.core.builtins import builtin
    from attn_tui.core.scenario_io import save

    old = os.umask(0o022)
    try:
        path = save(builtin("lesson-pipeline"), tmp_path / "s.toml")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
