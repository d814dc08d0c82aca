"""`report` on a large scenario (T above 512): a bounded summary, every figure checked against
the full trace (Scenario.run(), exact) of the same scenario; --full prints the matrices."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.limits import gib
from attn_tui.core.scenario import Scenario
from attn_tui.core.scenario_io import resolve
from attn_tui.report import full, summary

RNG = np.random.default_rng(5)
T = 600


def big(**kw):
    Q, K, V = (RNG.standard_normal((T, 8)) * 1.5 for _ in range(3))
    return Scenario(Q=Q, K=K, V=V, **kw)


@pytest.mark.parametrize("kw", [{}, {"mask": "window", "window": 9, "padding": (3,)}, {"mask": "none", "c": 4.0}])
def test_summary_figures_are_the_full_traces(kw):
    s = big(**kw)
    tr = s.run()
    f = summary.summarise(s, block=128)
    e = f["entropy"]
    assert e["rows"] == T and e["nan_rows"] == 0
    assert e["mean"] == pytest.approx(tr.H.mean(), abs=1e-12) and e["median"] == pytest.approx(np.median(tr.H))
    assert e["min"] == pytest.approx(tr.H.min(), abs=1e-12) and e["min_row"] == tr.H.argmin() + 1
    assert e["max_row"] == tr.H.argmax() + 1 and e["mean_effective_tokens"] == pytest.approx(tr.eff.mean())
    masked = np.where(tr.blocked, tr.A, 0)
    assert f["largest_masked_weight"]["A"] == pytest.approx(masked.max(), abs=1e-15)
    assert f["max_abs_row_sum_minus_1"] == pytest.approx(np.abs(tr.A.sum(axis=1) - 1).max(), abs=1e-14)
    assert f["rank"] == {"S": tr.rank_S, "Q": tr.rank_Q, "K": tr.rank_K, "d_k": 8}
    sv = np.linalg.svd(tr.S, compute_uv=False)[:8]
    np.testing.assert_allclose(f["singular_values_S"], sv, rtol=1e-9)
    for t, keys in f["top_keys"].items():
        order = np.argsort(-tr.A[t - 1], kind="stable")[: len(keys)]
        assert [k for k, _ in keys] == order.tolist()
        np.testing.assert_allclose([w for _, w in keys], tr.A[t - 1, order], atol=1e-15)
    seen = (~tr.blocked).sum(axis=1)
    frac = tr.H[seen > 1] / np.log2(seen[seen > 1])
    assert f["entropy_over_ceiling_histogram"]["counts"] == np.histogram(frac, bins=16, range=(0, 1))[0].tolist()


def save(tmp_path, T_=T, **arrays):
    p = tmp_path / "big.npz"
    arrays = arrays or {k: RNG.standard_normal((T_, 8)) for k in "QKV"}
    np.savez(p, **arrays)
    return p


def test_text_is_a_summary_without_matrices(tmp_path, capsys):
    assert main(["report", "--scenario", str(save(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "Matrix(" not in out and len(out.splitlines()) < 40
    assert "Summary: 600 tokens, above 64" in out and "rank(S) = 8" in out
    assert "(--full prints them; --full --json gives every number, for programs)." in out  # JSON: a summary too


def test_json_is_valid_and_bounded(tmp_path, capsys):
    sizes = []
    for n in (T, 2 * T):
        assert main(["report", "--json", "--scenario", str(save(tmp_path, n))]) == 0
        out = capsys.readouterr().out
        d = json.loads(out)
        assert d["summary"] is True and d["shape"]["T"] == n and "A" not in d
        sizes.append(len(out))
    assert max(sizes) < 8000 and abs(sizes[1] - sizes[0]) < 200  # no list grows with T


def test_nan_rows_are_counted_and_written_as_null(tmp_path, capsys):
    p = tmp_path / "nan.npz"
    np.savez(p, Q=np.ones((T, 2)), K=np.ones((T, 2)), mask=np.array("none"), fill=np.array("-inf"),
             padding=np.arange(1, T + 1))  # fmt: skip
    assert main(["report", "--json", "--scenario", str(p)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["entropy"] == {"rows": T, "nan_rows": T}


def test_full_prints_every_matrix_and_refuses_beyond_its_limit(tmp_path, capsys):
    assert main(["report", "--full", "--scenario", str(save(tmp_path))]) == 0
    assert "Matrix(600x600)" in capsys.readouterr().out
    n = full.FULL_MAX + 1
    p = save(tmp_path, n, Q=np.ones((n, 2)), K=np.ones((n, 2)))
    for flags, what in (([], "--full"), (["--json"], "--full --json")):
        assert main(["report", "--full", *flags, "--scenario", str(p)]) == 2
        err = capsys.readouterr().err
        need = gib(full.full_bytes(resolve(str(p), large=True), as_json=bool(flags)))
        assert err == (
            f"attn-tui: --full: {n} tokens; every matrix is printed up to {full.FULL_MAX} tokens ({what} here "
            f"would need about {need} of memory); leave out --full for the summary\n"
        )


def test_progress_is_one_rewritten_line_cleared_at_the_end():
    out = io.StringIO()
    f = summary.summarise(big(), block=256, progress=summary.progress_to(out))
    text = out.getvalue()
    assert text.split("\r")[1:4] == [
        "summarising: rows 256 of 600",
        "summarising: rows 512 of 600",
        "summarising: rows 600 of 600",
    ]
    assert text.endswith("\r" + " " * 40 + "\r") and f["entropy"]["rows"] == T
