"""Issue 34: `--full` said 2049 tokens would need 160 MiB (the full trace's matrices) while 2048
with `--json` peaked at 3.0 GB. The refusal now names report.full.full_bytes, a cost per number
printed; here it is checked against the peak that tracemalloc measures (NumPy's buffers
included) of the same report at a few hundred tokens: it must not understate the peak, nor
overstate it by more than a third (the constants were set from T = 512 and T = 2048)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from attn_tui.core.scenario import Scenario
from attn_tui.report import as_json, full, text


def peak_bytes(fn, s) -> int:
    tracemalloc.start()
    try:
        fn(s)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def scenario(T, projected):
    rng = np.random.default_rng(7)
    if projected:  # X, W_Q, W_K, W_V are printed too
        X, W = rng.standard_normal((T, 48)), [rng.standard_normal((48, 32)) for _ in range(3)]
        return Scenario(X=X, W_Q=W[0], W_K=W[1], W_V=W[2], mask="causal")
    return Scenario(Q=rng.standard_normal((T, 64)), K=rng.standard_normal((T, 64)), V=rng.standard_normal((T, 64)))


@pytest.mark.parametrize("projected", [False, True])
@pytest.mark.parametrize(("as_json_", "fn"), [(True, as_json.scenario_json), (False, text.scenario_text)])
def test_the_stated_memory_is_the_measured_peak_within_a_third(as_json_, fn, projected):
    s = scenario(200, projected)
    fn(s)  # the first call imports and caches what it needs: measure the second
    measured = peak_bytes(fn, s)
    stated = full.full_bytes(s, as_json=as_json_)
    assert measured <= stated <= 4 * measured / 3, (measured, stated)


def test_the_refusal_names_the_jsons_peak():
    s = Scenario(Q=np.ones((2049, 64)), K=np.ones((2049, 64)), V=np.ones((2049, 64)))
    with pytest.raises(ValueError, match=r"--full --json here would need about [23]\.\d GiB of memory"):
        full.check_full(s, as_json=True)
    with pytest.raises(ValueError, match=r"\(--full here would need about \d\d\d MiB of memory\)"):
        full.check_full(s)
