"""The cell inspector's text (core.derive) for every cell of every matrix, against lines built
here from the lesson's formulas: the sums recomputed from the inputs (math.fsum), the values
read from the trace, the masks' reasons from the mask rules (tests/core/reference_attention).

Written to kill the mutants of core/derive.py (scripts/mutation.sh): a wrong index, label,
formula, filter or sentence fails. Numbers are written with core.numfmt.fit_number (tested on its own
in test_numfmt.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from attn_tui.core.builtins import BUILTINS, builtin
from attn_tui.core.derive import block_reason, derivation
from attn_tui.core.diagnose import nan_cause
from attn_tui.core.numfmt import fit_number
from attn_tui.core.random_scenario import random_scenario
from attn_tui.core.scenario import Scenario
from tests.core.reference_attention import blocked as ref_blocked


def num(x) -> str:
    return fit_number(float(x), 10)


def sum_text(pairs) -> str:
    """The terms a·b whose product is not 0 (NaN kept), six at most, then "+ … (k more)"."""
    kept = [(a, b) for a, b in pairs if math.isnan(a * b) or a * b != 0]
    text = " + ".join(f"{num(a)}×{num(b)}" for a, b in kept[:6])
    if len(kept) > 6:
        text += f" + … ({len(kept) - 6} more)"
    return text or "0 (every term is 0)"


def reasons(s, r, c) -> str:
    out = []
    if c + 1 in s.padding:
        out.append(f"key {c + 1} is padding")
    if s.mask in ("causal", "window") and c > r:
        out.append("a future key (causal)")
    if s.mask == "window" and c <= r and c <= r - s.window:
        out.append(f"outside the window of the last {s.window} keys")
    return ", ".join(out) or "masked"


def expected(s, tr, name, r, c):
    typed_qkv = name in ("Q", "K", "V") and not s.projected
    if name in ("X", "Y", "W_Q", "W_K", "W_V") or typed_qkv:
        value = getattr(tr, name)[r, c] if typed_qkv else getattr(s, name)[r, c]
        edits = name != "V" or s.V is not None
        return [
            f"{name}[{r + 1},{c + 1}] = {num(value)}",
            "an input, given, not computed (enter edits it)" if edits else "V is the identity: Q and K came without V",
        ]
    if name in ("Q", "K", "V"):
        src_name = "Y" if s.cross and name != "Q" else "X"
        src = getattr(s, src_name)
        W = getattr(s, f"W_{name}")
        return [
            f"{name}[{r + 1},{c + 1}] = Σ_f {src_name}[{r + 1},f]·W_{name}[f,{c + 1}]",
            "= " + sum_text([(float(src[r, f]), float(W[f, c])) for f in range(W.shape[0])]),
            f"= {num(getattr(tr, name)[r, c])}",
        ]
    head = f"row {s.tokens[r]}, key {s.keys[c]}" if name in ("S", "M", "A") else None
    if name == "S":
        q, k = [float(x) for x in tr.Q[r]], [float(x) for x in tr.K[c]]
        dot = math.fsum(a * b for a, b in zip(q, k))
        d_k = len(q)
        form = f"c·q·k/√d_k = {num(s.c)}×{num(dot)}/√{d_k}" if s.scaled else f"c·q·k = {num(s.c)}×{num(dot)}"
        out = [
            f"S[{r + 1},{c + 1}] ({head})",
            "q = [" + " ".join(num(x) for x in q) + "]",
            "k = [" + " ".join(num(x) for x in k) + "]",
            f"q·k = {num(dot)};  {form} = {num(tr.S[r, c])}",
        ]
        if not math.isfinite(tr.S[r, c]):
            big = float(np.finfo(tr.S.dtype).max)
            out.append(f"overflow: beyond the largest {s.dtype} ({big:g}), so S = {num(tr.S[r, c])}; not a mask")
        if tr.blocked[r, c]:
            out.append(f"blocked: S+M = {num(tr.S_masked[r, c])}, so A = 0")
        return out
    if name == "M":
        why = f"blocked: {reasons(s, r, c)}" if tr.blocked[r, c] else "open: query may see this key"
        if tr.blocked[r, c] and s.fill == "-1e9" and tr.M[r, c] == -math.inf:
            why += f" (the -1e9 fill is -inf in {s.dtype})"
        return [f"M[{r + 1},{c + 1}] ({head}) = {num(tr.M[r, c])}", why, f"S + M = {num(tr.S_masked[r, c])}"]
    if name == "A":
        x = [float(v) for v in tr.S_masked[r]]
        mx = math.nan if any(map(math.isnan, x)) else max(x)  # NumPy's max: NaN wins
        with np.errstate(invalid="ignore", over="ignore"):
            e = [float(np.exp(v - mx)) for v in x]
        total = math.fsum(e) if not any(map(math.isnan, e)) else math.nan
        if math.isnan(tr.A[r, c]):
            cause = nan_cause(tr, r)
            if cause.kind == "masked":
                last = "NaN: every key is masked with −∞, and −∞ − (−∞) = NaN"
            else:
                last = "NaN: " + cause.short + ("" if any(tr.blocked[r]) else "; nothing is masked")
        elif not tr.blocked[r, c]:
            last = ""
        elif tr.A[r, c] == 0:
            last = "masked: exp(−huge) = 0"
        elif all(tr.blocked[r]):
            last = "masked, yet not 0: every key of this row is masked, so (S+M) − max is small (a −∞ fill gives NaN)"
        else:
            last = "masked, yet not 0: the fill does not outweigh these scores"
        three = lambda v: f"{v:.3g}".replace("e-0", "e-") if 0 < abs(v) < 0.1 else num(v)  # noqa: E731
        near = math.isfinite(mx) and abs(mx) >= 1e6
        arg = f"(S+M) − max = {num(x[c] - mx)}" if near else f"{num(x[c])} − {num(mx)}"
        return [
            f"A[{r + 1},{c + 1}] ({head})",
            "= exp((S+M)[t,i] − max_j (S+M)[t,j]) / Σ_j exp((S+M)[t,j] − max)",
            f"= exp({arg}) / {num(total)}",
            f"= {three(e[c])} / {num(total)} = {three(float(tr.A[r, c]))}",
            last,
        ]
    if name == "O":
        pairs = [(float(tr.A[r, i]), float(tr.V[i, c])) for i in range(tr.V.shape[0])]
        return [
            f"O[{r + 1},{c + 1}] (row {s.tokens[r]}, {s.value_features[c]})",
            "= Σ_i A[t,i]·V[i,j]",
            "= " + sum_text(pairs),
            f"= {num(tr.O[r, c])}",
        ]
    if name == "H":
        p = [float(x) for x in tr.A[r] if x > 0]
        visible = sum(1 for b in tr.blocked[r] if not b)
        if visible:
            cap = f"ceiling log₂{visible} = {num(math.log2(visible))} bits (visible keys)"
        else:
            cap = "ceiling —: no visible key" + (
                "" if math.isnan(tr.H[r]) else " (the finite fill spreads the row over masked keys)"
            )
        if len(p) > 6:  # the six largest −p·log₂p, in key order, then how many are left out
            big = sorted(sorted(range(len(p)), key=lambda i: -(-p[i] * math.log2(p[i])))[:6])
            terms = " ".join(f"−{num(p[i])}·log₂{num(p[i])}" for i in big) + f" − … ({len(p) - 6} smaller terms)"
        else:
            terms = " ".join(f"−{num(x)}·log₂{num(x)}" for x in p)
        return [
            f"row {s.tokens[r]}: H(A_t) = −Σ_i A[t,i] log₂ A[t,i]",
            f"= {terms}" if terms else "",
            f"= {num(tr.H[r])} bits;  2^H = {num(tr.eff[r])} tokens",
            cap,
        ]
    return [f"{name}[{r + 1},{c + 1}]"]


def scenarios():
    wide = random_scenario(T=7, d_model=8, d_k=3, d_v=5, seed=3)
    yield from ((n, builtin(n)) for n in BUILTINS)
    yield "random, padding, c=1.7", wide.with_(padding=(2, 5), c=1.7)
    yield (
        "random, window, unscaled, -inf",
        wide.with_(mask="window", window=2, padding=(1,), fill="-inf", scaled=False, c=0.6),
    )
    yield "random, window 3, -1e9 fill, padded first", wide.with_(mask="window", window=3, padding=(1,))
    yield "random, all keys of row 1 padded, finite fill", wide.with_(padding=(1,), fill="-1e9")
    big = [[300.0, 0.0], [300.0, 1.0], [0.5, 0.25]]
    yield (
        "float16 overflow, no mask, V typed",
        Scenario(
            Q=big, K=big, V=[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], mask="none", dtype="float16", tokens=("a", "b", "c")
        ),
    )
    yield "float16 overflow, causal", Scenario(Q=big, K=big, dtype="float16", tokens=("a", "b", "c"))
    # float16 rounds the typed 1000.3 to 1000.5 and exp(-10) to 4.542e-5: the trace's numbers, not the file's
    yield (
        "float16 typed Q, K, V, spread scores",
        Scenario(
            Q=[[1000.3, 0.0], [1.0, 1.0]],
            K=[[0.0, 0.0], [0.01, 10.0], [0.0033, 3.3]],
            V=[[1.1], [2.2], [3.3]],
            mask="none",
            dtype="float16",
            tokens=("a", "b"),
            scaled=False,
        ),
    )
    # exp(-7.890625) is 3.742e-4 in float64 and 3.743e-4 in float16: the softmax line is computed in float64
    yield "float16 softmax terms", Scenario(Q=[[1.0]], K=[[0.0], [-7.890625]], mask="none", dtype="float16")
    yield (
        "float16 inputs overflow (inf times 0)",
        Scenario(
            X=[[1000.0, 0.0], [0.0, 1.0]],
            W_Q=[[100.0, 0.0], [0.0, 1.0]],
            W_K=[[1.0, 0.0], [0.0, 1.0]],
            W_V=[[1.0], [1.0]],
            dtype="float16",
            mask="none",
            tokens=("a", "b"),
        ),
    )


SCENARIOS = list(scenarios())


@pytest.mark.parametrize("label, s", SCENARIOS, ids=[lab for lab, _ in SCENARIOS])
def test_every_cell_of_every_matrix(label, s):
    """... and without a RuntimeWarning: inf·0, inf − inf and −inf − (−inf) are explained, not warned."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_every_cell(label, s)


def check_every_cell(label, s):
    tr = s.run()
    names = ["Q", "K", "V", "S", "M", "A", "O", "H", "S_masked"]
    names += ["X", "W_Q", "W_K", "W_V"] + (["Y"] if s.cross else []) if s.projected else []
    for name in names:
        a = tr.H[:, None] if name == "H" else getattr(s, name) if name in ("X", "Y") or "W_" in name else None
        rows, cols = a.shape if a is not None else getattr(tr, name).shape
        for r in range(rows):
            for c in range(cols):
                assert derivation(s, tr, name, r, c) == expected(s, tr, name, r, c), (label, name, r, c)


def test_the_scenarios_reach_every_branch():
    """The scenarios above hold an overflow, a NaN row of each kind, both fills' blocked rows,
    a sum of more than six terms and one of none: a branch no scenario reaches kills nothing."""
    seen = set()
    for _, s in SCENARIOS:
        tr = s.run()
        seen |= {nan_cause(tr, r).kind for r in tr.nan_rows}
        seen.add("overflow" if not np.all(np.isfinite(tr.S)) else "finite")
        if s.projected and s.d_model > 6:
            seen.add("more than six terms")
        if np.any((~tr.blocked).sum(axis=1) == 0) and not np.any(np.isnan(tr.H)):
            seen.add("finite fill over masked keys")
    assert {"masked", "scores", "overflow", "more than six terms", "finite fill over masked keys"} <= seen


@pytest.mark.parametrize("mask, window, padding", [("causal", None, (2,)), ("window", 2, (1, 4)), ("none", None, (3,))])
def test_block_reason_names_every_rule_that_blocks(mask, window, padding):
    s = random_scenario(T=5, d_model=3, d_k=2, d_v=2, seed=1).with_(mask=mask, window=window, padding=padding)
    B = ref_blocked(mask, 5, 5, padding, window)
    for r in range(5):
        for c in range(5):
            want = reasons(s, r, c) if B[r][c] else "masked"
            assert block_reason(s, r, c) == want, (mask, r, c)


def test_a_fully_masked_row_with_a_finite_fill_says_its_weights_are_not_0():
    s = builtin("lesson-pipeline").with_(padding=(1,))  # row 1 sees only key 1, and key 1 is padding
    tr = s.run()
    lines = derivation(s, tr, "A", 0, 0)
    assert tr.blocked[0].all() and 0 < tr.A[0, 0] < 1
    x = tr.S_masked[0]
    assert lines[2].startswith(f"= exp((S+M) − max = {fit_number(float(x[0] - x.max()), 10)}) / ")
    assert lines[-1].startswith("masked, yet not 0: every key of this row is masked")
    e = np.exp(x - x.max())
    assert e[0] >= 0.1 and tr.A[0, 0] >= 0.1  # uniform: 1 / 5 = 0.2, written as the other weights
    assert (
        lines[3]
        == f"= {fit_number(float(e[0]), 10)} / {fit_number(float(e.sum()), 10)} = {fit_number(float(tr.A[0, 0]), 10)}"
    )


def test_a_small_weight_keeps_three_significant_digits_so_the_quotient_checks():
    rng = np.random.default_rng(5)
    s = Scenario(Q=3 * rng.standard_normal((6, 4)), K=3 * rng.standard_normal((6, 4)), mask="none")
    tr = s.run()
    r, c = np.unravel_index(np.argmin(np.where(tr.A > 0, tr.A, 1)), tr.A.shape)
    assert tr.A[r, c] < 0.01
    x = tr.S_masked[r]
    e = np.exp(x - x.max())
    line = derivation(s, tr, "A", int(r), int(c))[3]
    num, _, rest = line.removeprefix("= ").partition(" / ")
    assert float(num) == pytest.approx(e[c], rel=5e-3)  # 3 significant digits, not "0.002"
    assert float(rest.split(" = ")[1]) == pytest.approx(tr.A[r, c], rel=5e-3)
