"""The headless report: the lesson's standalone scripts, printed the way they print.

`lesson_text()` prints every number Lesson 08 prints, in its order and layout
(rustlab's ``print``: arguments joined by one space, a matrix as ``Matrix(RxC)``
rows with 6 decimals, a row vector as ``[1×n]`` with 6 decimals, a scalar in its
shortest exact positional form). `scenario_text()` reports one scenario.
Everything is computed by ``attn_tui.core``; nothing here imports a UI library.
JSON lives in :mod:`attn_tui.report.as_json`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core import builtin, experiments, lenses
from ..core.diagnose import NO_CEILING, ceiling_bits, nan_causes, overflows
from ..core.labeltext import positioned
from ..core.limits import printable
from ..core.scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace
    from attn_tui.core.heads.head_origin import HeadOrigin

RNG_NOTE = (
    "Note: the seeded experiments below draw from NumPy's default_rng (seeds 8, 9, 10 for "
    "d_k = 4, 64, 512, 8 for the saturation row, 16 for the sweep), not the lesson's generator, "
    "so the digits differ; the shape reproduces: Var(q.k)/d_k ~ 1, unscaled ~ one-hot, "
    "entropy falling with c."
)
SWEEP_POINTS = (0.1, 1.0, 3.0)


# -- rustlab-style formatting ---------------------------------------------------
def fmt_num(x: Any) -> str:
    """A scalar as rustlab prints it: whole numbers without a point, others in the
    shortest positional form that round-trips (3.3e-16 -> 0.00000000000000033...)."""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if not np.isfinite(x):
        return "NaN" if np.isnan(x) else ("Inf" if x > 0 else "-Inf")
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= BIG:
        return f"{x:.6e}"  # never a 300-digit integer
    return np.format_float_positional(x, trim="-")


BIG = 1e15  # from here on numbers print in e-notation


def fmt_cell(x: Any) -> str:
    """A matrix entry with 6 decimals, or 6-digit e-notation when |x| >= BIG."""
    return f"{x:.6e}" if np.isfinite(x) and abs(x) >= BIG else f"{x:.6f}"


def fmt_matrix(a: np.ndarray) -> str:
    """``Matrix(RxC)`` then one ``  [a, b, ...]`` line per row, 6 decimals."""
    a = np.asarray(a, dtype=np.float64)
    rows = ["  [" + ", ".join(fmt_cell(x) for x in row) + "]" for row in a]
    return f"Matrix({a.shape[0]}x{a.shape[1]})\n" + "\n".join(rows)


def fmt_vector(v: Any) -> str:
    """A row vector: ``[1×n]`` then the entries with 6 decimals, two spaces apart."""
    v = np.asarray(v, dtype=np.float64).ravel()
    return f"[1×{v.size}]  " + "  ".join(fmt_cell(x) for x in v)


def fmt_part(x: Any) -> str:
    """One part of rprint: a string as is, a matrix, a vector or a number in rustlab's form."""
    if isinstance(x, str):
        return x
    if isinstance(x, np.ndarray) and x.ndim == 2:
        return fmt_matrix(x)
    if isinstance(x, (np.ndarray, list, tuple)):
        return fmt_vector(x)
    return fmt_num(x)


def rprint(*parts: Any) -> str:
    """rustlab's print(a, b, ...): the parts joined by a single space."""
    return " ".join(fmt_part(p) for p in parts)


# -- the lesson's numbers -------------------------------------------------------
def lesson_numbers() -> dict[Any, Any]:
    """Every number the lesson prints, computed from its inputs by the core."""
    hand = builtin("lesson-handcrafted")
    tr = hand.run()
    A = tr.A  # (T, T)
    T = hand.T
    pipe = builtin("lesson-pipeline")
    tr2 = pipe.run()
    t4 = 3  # the lesson's row 4, 0-based
    nw_row, _ = lenses.nadaraya_watson_row(tr2.Q, tr2.K, tr2.V, t4, tr2.scale, tr2.blocked)
    box = builtin("box-kernel").run()
    return {
        "hand": hand,
        "trace": tr,
        "pipe": pipe,
        "trace2": tr2,
        "A_1_1": float(A[0, 0]),
        "row_sums": A.sum(axis=1),
        "max_upper": max([0.0, *A[np.triu_indices(T, 1)]]),
        "diff_row1": lenses.max_abs_diff(tr2.O[0], tr2.V[0]),
        "params_qkv": lenses.param_count(pipe.d_model, pipe.d_k, pipe.d_v),
        "nw_diff": lenses.max_abs_diff(nw_row, tr2.O[t4]),
        "box_diff": lenses.max_abs_diff(box.A, lenses.prefix_average(T)),
        "variance": experiments.variance(),
        "saturation": experiments.saturation(),
        "sweep": experiments.scale_sweep(),
        "H_at": experiments.entropies_at(SWEEP_POINTS),
        "T_sweep": len(experiments.sweep_scores()),
    }


def entropy_table(H_A: Any, H_A2: Any) -> list[str]:
    """The lesson's fprintf table: t, log2 t, then H and 2^H of both matrices."""
    out = [" t  log2(t) |  hand-crafted A: H(A_t)  2^H  |  pipeline A2: H(A_t)  2^H"]
    for t, (h, h2) in enumerate(zip(H_A, H_A2), 1):
        out.append(
            f" {t}   {np.log2(t):.2f}   |        {h:.2f}            {2**h:.2f}  |        {h2:.2f}          {2**h2:.2f}"
        )
    return out


def lesson_text() -> str:
    """The whole lesson's printed output, block by block, blank line between blocks."""
    n = lesson_numbers()
    tr, tr2, hand = n["trace"], n["trace2"], n["hand"]
    sat = n["saturation"]
    blocks = [
        ["Lesson 08: Scaled Dot-Product Attention -- every number the lesson prints, computed by attn_tui.core"],
        [rprint("A ="), rprint(tr.A)],
        [
            rprint("A(1,1) =", n["A_1_1"], "   row sums =", n["row_sums"]),
            rprint("largest upper-triangle entry =", n["max_upper"]),
        ],
        [rprint("A2 ="), rprint(tr2.A), rprint("O ="), rprint(tr2.O)],
        [rprint("max |O(1, :) - V(1, :)| =", n["diff_row1"], "   params 3 * d_model * d_k =", n["params_qkv"])],
        [
            rprint("max|Nadaraya-Watson row 4 - O(4, :)| =", n["nw_diff"]),
            rprint("max|A(W_Q = W_K = 0) - W_avg| =", n["box_diff"]),
        ],
        entropy_table(tr.H, tr2.H),
        [
            rprint("rank(S)  =", tr.rank_S, "  rank(Q)  =", tr.rank_Q, "  rank(K)  =", tr.rank_K, "  d_k =", hand.d_k),
            rprint("rank(S2) =", tr2.rank_S, "  rank(Q2) =", tr2.rank_Q, "  rank(K2) =", tr2.rank_K),
        ],
        [RNG_NOTE]
        + [
            rprint("d_k =", v["d_k"], "  Var(q.k) =", v["var"], "  Var(q.k) / d_k =", v["ratio"]) for v in n["variance"]
        ],
        [
            rprint("unscaled: max A =", sat["unscaled"]["max"], "  H(A) =", sat["unscaled"]["H"], "bits"),
            rprint(
                "scaled:   max A =",
                sat["scaled"]["max"],
                "  H(A) =",
                sat["scaled"]["H"],
                "bits   (uniform over 8 =",
                sat["log2_T"],
                "bits)",
            ),
        ],
        [rprint("H(A_t) at c = 0.1, 1, 3:", *n["H_at"], "bits   (log2 8 =", np.log2(n["T_sweep"]), ")")],
    ]
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"


# -- one scenario -----------------------------------------------------------------
def params_qkv(s: Scenario, proj: HeadOrigin | None = None) -> Any:
    """d_model(2 d_k + d_v) when Q, K, V are projected from X, or a model's head whose projections its
    source holds (``proj``: core/heads/head_origin.py); None when given directly."""
    if not s.projected and proj is not None:
        return proj.params
    return lenses.param_count(s.d_model, s.d_k, s.d_v) if s.projected else None


def d_model_of(s: Scenario, proj: HeadOrigin | None = None) -> Any:
    """The residual stream's width: X's, or a model's head's (``proj``); None for Q, K, V alone."""
    return s.d_model if s.projected else proj.d_model if proj is not None else None


def shape_line(s: Scenario, proj: HeadOrigin | None = None) -> str:
    dm = d_model_of(s, proj)
    return f"T = {s.T}   T' = {s.T_k}   d_model = {'-' if dm is None else dm}   d_k = {s.d_k}   d_v = {s.d_v}"


def params_line(s: Scenario, proj: HeadOrigin | None = None) -> str:
    """What the report says of the parameters that made Q, K, V."""
    if not s.projected and proj is not None:
        return proj.words()
    p = params_qkv(s)
    return (
        rprint("params d_model * (2 d_k + d_v) =", p)
        if p is not None
        else "params: n/a (Q, K, V given directly, no projections)"
    )


def tokens_of(s: Scenario, proj: HeadOrigin | None = None) -> tuple[Any, ...]:
    """The query tokens a report lists: a model's head's own labels (their spaces kept: " c"), else the
    Scenario's."""
    own = () if proj is None else proj.tokens
    return tuple(own) if len(own) == s.T else tuple(s.tokens)


def keys_line(s: Scenario, proj: HeadOrigin | None = None) -> tuple[str, ...]:
    """The keys a report lists: the tokens again in self-attention, else the keys as "k1 ..."."""
    return listed(tokens_of(s, proj)) if s.keys is s.tokens else listed(s.keys, "k")


def listed(tokens: Any, prefix: str = "t") -> tuple[str, ...]:
    """The labels of a tokens line: as the views show them (labeltext.positioned), and when a label
    carries its own leading or trailing space (a tokenizer's " cat"), each with its position and quoted,
    as `heads --query` lists them ("t2 ' cat'"), so the space shows."""
    tokens = tuple(tokens)
    if any(str(t) != str(t).strip() for t in tokens):
        return tuple(printable(f"{prefix}{i} {str(t)!r}") for i, t in enumerate(tokens, 1))
    return tuple(map(printable, positioned(tokens, prefix)))


def visible_keys(blocked: Any) -> np.ndarray:
    """How many keys each query row may see, (T,)."""
    return (~np.asarray(blocked)).sum(axis=1)


def settings(s: Scenario) -> dict[Any, Any]:
    return {
        "c": s.c,
        "scaled": s.scaled,
        "scale": float(s.scale),
        "mask": s.mask,
        "window": s.window,
        "fill": s.fill,
        "dtype": s.dtype,
        "padding": list(s.padding),
    }


def scenario_text(s: Scenario, name: str = "", proj: HeadOrigin | None = None) -> str:
    """One scenario: title, shapes, settings, Q, K, V, S, M, A, O, entropies, ranks, params, NaN rows;
    ``proj``: a model's head's d_model and projections (core/heads/head_origin.py), for the shape and params."""
    tr = s.run()
    lines = _heading(s, name, proj) + _matrices(s, tr) + _entropies(tr) + _closing(s, tr, proj)
    return "\n".join(line for i, line in enumerate(lines) if line or i > 1) + "\n"


def _heading(s: Scenario, name: str, proj: HeadOrigin | None = None) -> list[str]:
    """Title, the scenario's name (or an empty line, dropped), shapes, settings, the labels."""
    st = settings(s)
    shape = shape_line(s, proj)
    # titles, labels and names are written with their control characters escaped: never a raw ESC/BEL
    return [
        printable(s.title),
        f"scenario: {printable(name)}" if name else "",
        shape,
        rprint(
            "settings: mask =",
            st["mask"] + (f" (window {s.window})" if s.window else ""),
            "  padding =",
            str(st["padding"]),
            "  fill =",
            st["fill"],
            "  c =",
            st["c"],
            "  scaled =",
            st["scaled"],
            f"  (scale = {fmt_num(st['scale'])})",
            "  dtype =",
            st["dtype"],
        ),
        "tokens: " + ", ".join(listed(tokens_of(s, proj))),
        "keys:   " + ", ".join(keys_line(s, proj)),
        "",
    ]


def _matrices(s: Scenario, tr: Trace) -> list[str]:
    S_label = "S = c * Q K^T / sqrt(d_k)" if s.scaled else "S = c * Q K^T (unscaled)"
    lines = []
    for label, m in (
        ("Q =", tr.Q),
        ("K =", tr.K),
        ("V =", tr.V),
        (S_label + " =", tr.S),
        (f"M (additive mask, fill {s.fill}) =", tr.M),
        ("A = softmax_row(S + M) =", tr.A),
        ("O = A V =", tr.O),
    ):
        lines += [label, fmt_matrix(m)]
    return lines


def _entropies(tr: Trace) -> list[str]:
    lines = ["", "  t  keys  log2(keys) |  H(A_t)    2^H"]
    for t, (k, lg, h) in enumerate(zip(visible_keys(tr.blocked), ceiling_bits(tr.blocked), tr.H), 1):
        lg_txt = f"{lg:10.2f}" if np.isfinite(lg) else f"{NO_CEILING:>10}"  # no visible key: no ceiling
        lines.append(f" {t:2d}  {k:4d}  {lg_txt} | {h:7.2f} {2**h:6.2f}")
    return lines


def _closing(s: Scenario, tr: Trace, proj: HeadOrigin | None = None) -> list[str]:
    """Ranks, parameters, NaN rows and what overflowed."""
    lines = [
        "",
        rprint(
            "rank(S) =",
            _rank(tr.rank_S),
            "  rank(Q) =",
            _rank(tr.rank_Q),
            "  rank(K) =",
            _rank(tr.rank_K),
            "  d_k =",
            s.d_k,
        ),
    ]
    lines.append(params_line(s, proj))
    lines.append(
        "NaN rows: none"
        if not tr.nan_rows
        else "NaN rows: " + "; ".join(f"{printable(s.token_labels[c.row])} ({c.short})" for c in nan_causes(tr))
    )
    ov = overflows(tr)
    if ov:
        lines.append(f"overflow in {s.dtype}: " + ", ".join(ov))
    return lines


def _rank(r: int) -> Any:
    return "n/a (S not finite)" if r is None else r
