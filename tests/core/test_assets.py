"""The shipped scenario files are the built-ins, byte for byte after a round trip."""

from pathlib import Path

import numpy as np
import pytest

from attn_tui.core import BUILTINS, builtin
from attn_tui.core.scenario_io import dumps, load

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "scenarios"
FILES = sorted(ASSETS.glob("*.toml"))


def test_every_builtin_is_shipped_and_every_file_is_a_builtin():
    assert {f.stem for f in FILES} == set(BUILTINS)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_asset_loads_and_equals_its_builtin(path):
    s = load(path)
    b = builtin(path.stem)
    assert dumps(s) == dumps(b)
    assert path.read_text(encoding="utf-8") == dumps(b)  # regenerate with scripts/make_assets.py
    ts, tb = s.run(), b.run()
    np.testing.assert_array_equal(ts.A, tb.A)
    np.testing.assert_array_equal(ts.O, tb.O)
    assert ts.nan_rows == tb.nan_rows


def test_asset_settings_are_what_their_names_say():
    assert load(ASSETS / "padding-nan.toml").run().nan_rows == (0,)
    f16 = load(ASSETS / "float16-overflow.toml").run()
    assert f16.M.dtype == np.float16 and np.isneginf(f16.M[0, 1])
    cross = load(ASSETS / "cross-attention.toml")
    assert cross.cross and cross.T_k == 3 and cross.run().A.shape == (5, 3)
    box = load(ASSETS / "box-kernel.toml").run()
    assert np.all(box.S == 0)
