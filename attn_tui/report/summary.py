"""The report of a large scenario: a summary, not every matrix (the text above REPORT_TEXT_MAX tokens,
the JSON above limits.REPORT_JSON_MAX; `--full` prints every matrix up to FULL_MAX).

Shapes, settings, row-entropy statistics, the top keys of a few rows, the largest weight
on a masked cell, row sums and the ranks. Every whole-matrix figure comes from
core.stream (row blocks, two passes over their key tiles: no T x T' matrix is stored) and
the ranks from QR factors of Q and K (core.ranks); the JSON is bounded (no list grows
with T beyond the few rows shown and a fixed histogram).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from threadpoolctl import threadpool_limits

from ..core import stream
from ..core.limits import REPORT_JSON_MAX, REPORT_TEXT_MAX, printable
from ..core.machine import spare_threads
from ..core.ranks import qr_ranks
from ..core.scenario import Scenario
from .full import everything_hint, full_hint
from .text import d_model_of, fmt_num, keys_line, listed, params_line, params_qkv, settings, shape_line, tokens_of

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.heads.head_origin import HeadOrigin

    from ..core.stream_source import Source

    Masked = tuple[float, int | None]  # the largest weight on a masked cell so far, its 0-based row (or None)

TOP = 3  # keys listed per sampled row
SHOWN_SVS = 8  # singular values of S listed
BINS = 16  # histogram of H(A_t) / log2(keys seen)
LABELS_SHOWN = 8


def sample_rows(s: Scenario) -> list[int]:
    """0-based rows shown with their top keys: the first, the focus row, quarters, the last."""
    T = s.T
    rows = [0, T // 4, T // 2, 3 * T // 4, T - 1]
    if s.focus_row:
        rows.append(s.focus_row - 1)
    return sorted(set(rows))


def summarise(s: Scenario, block: int = stream.BLOCK, progress: Any | None = None) -> dict[Any, Any]:
    """The summary's numbers (module doc). ``progress(done, total)`` is called after each block.
    On one BLAS thread, as the explorer: S comes in products of 16 x 512 (Source.product, the
    explorer's tiles, so the summary's weights are the ones it shows), and OpenBLAS splitting
    each over two threads took 3.4 s for the 512 products of 1024 x 4096 where one took 0.06 s.
    The row blocks are shared by threads while cores are idle instead (workers; NumPy and the BLAS
    release the GIL): each block's figures are computed alone, so they are the same on any number
    of threads."""
    with threadpool_limits(1, user_api="blas"):
        return _summarise(s, block, progress)


MAX_WORKERS = 4


def workers() -> int:
    """Threads for the row blocks (core.machine.spare_threads: more than 1 while cores are idle)."""
    return spare_threads(MAX_WORKERS)


def _summarise(s: Scenario, block: Any, progress: Any) -> Any:
    src = stream.Source.of(s)
    lean = replace(src, V=None)  # the summary shows no O: the pass computes no A V
    T = s.T
    H, m, l = np.empty(T), np.empty(T), np.empty(T)  # noqa: E741
    worst_sum = 0.0
    masked: Masked = (0.0, None)
    blocks = list(stream.blocks(T, block))

    def one(rows: tuple[int, int]) -> Any:  # masked tiles left out: they add exactly 0
        return stream.row_stats(lean, *rows, top=0, sums=True)

    with ThreadPoolExecutor(workers()) as pool:
        for (r0, r1), st in zip(blocks, pool.map(one, blocks)):  # in order: progress counts up
            worst_sum, masked = _block_figures(st, r0, r1, H, m, l, worst_sum, masked)
            if progress:
                progress(r1, T)
    tops = {t: _top_keys(src, t, m[t], l[t]) for t in sample_rows(s)}
    return _figures(s, src, H, src.visible_keys(), worst_sum, masked, tops)


def _block_figures(
    st: Any, r0: int, r1: int, H: np.ndarray, m: np.ndarray, l: np.ndarray, worst_sum: float, masked: Masked
) -> tuple[float, Masked]:
    """Rows r0:r1 of H, m, l from ``st``; the largest |row sum − 1| and masked weight so far."""
    H[r0:r1], m[r0:r1], l[r0:r1] = st.H, st.m, st.l
    with np.errstate(invalid="ignore"):
        dev = np.nanmax(np.abs(st.row_sums - 1.0), initial=0.0)
        worst_sum = max(worst_sum, float(dev))
        mb = np.nan_to_num(st.max_blocked_w, nan=-1.0)
    if mb.size and mb.max() > masked[0]:
        masked = (float(mb.max()), r0 + int(mb.argmax()))
    return worst_sum, masked


def _top_keys(src: Source, t: int, m: float, l: float) -> list[tuple[int, float]]:  # noqa: E741
    """The TOP keys of 0-based row t by weight e^(x − m) / l (x of S + M in float64, the cells of
    the pass's products), the lower key first among equals; none of weight 0 (a masked key under
    a finite fill, a −inf one) and none of a NaN row."""
    X = src.masked(t, t + 1)[0].astype(np.float64)
    order = np.argsort(-X, kind="stable")[:TOP]
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(X[order] - m) / l if np.isfinite(m) else np.full(len(order), np.nan)
    return [(int(i), float(x)) for i, x in zip(order, w) if x > 0]


def _figures(
    s: Scenario, src: Source, H: np.ndarray, seen: Any, worst_sum: float, masked: Masked, tops: Any
) -> dict[str, Any]:
    ok = ~np.isnan(H)
    with np.errstate(divide="ignore", invalid="ignore"):
        ceiling = np.log2(seen.astype(np.float64))
        frac = np.where((seen > 1) & ok, H / ceiling, np.nan)
    fin = np.clip(frac[np.isfinite(frac)], 0.0, 1.0)  # a uniform row's H / log2 n rounds to 1 ± an ulp
    hist = np.histogram(fin, bins=BINS, range=(0.0, 1.0))[0] if fin.size else np.zeros(BINS, dtype=int)
    Hok = H[ok]
    r = qr_ranks(src.Q, src.K, src.scale, src.dtype)
    stats: dict[str, float] = {"rows": int(s.T), "nan_rows": int((~ok).sum())}
    if Hok.size:
        stats |= {
            "mean": float(Hok.mean()),
            "median": float(np.median(Hok)),
            "min": float(Hok.min()),
            "min_row": int(np.flatnonzero(ok)[Hok.argmin()]) + 1,
            "max": float(Hok.max()),
            "max_row": int(np.flatnonzero(ok)[Hok.argmax()]) + 1,
            "mean_effective_tokens": float(np.exp2(Hok).mean()),
        }
    return {
        "entropy": stats,
        "entropy_over_ceiling_histogram": {"bins": BINS, "counts": [int(c) for c in hist]},
        "top_keys": {t + 1: tops[t] for t in sorted(tops)},
        "largest_masked_weight": {"A": masked[0], "row": None if masked[1] is None else masked[1] + 1},
        "max_abs_row_sum_minus_1": worst_sum,
        "rank": {"S": r["S"], "Q": r["Q"], "K": r["K"], "d_k": s.d_k},
        "singular_values_S": r["singular_values"][:SHOWN_SVS].tolist(),
    }


def _named(label: str, prefix: str, pos: int) -> str:
    """A token by its position and label as the lesson writes them, "t1 mat", or its label alone
    when that is the position's default name or already begins with it ("t252", "t4 it")."""
    label = printable(label)
    name = f"{prefix}{pos}"
    return label if label in (f"t{pos}", name) or label.startswith(name + " ") else f"{name} {label}"


def _sizes(s: Scenario) -> str:
    """ "2048 tokens", or "600 queries x 700 keys" when T and T' differ."""
    return f"{s.T} tokens" if s.T == s.T_k else f"{s.T} queries x {s.T_k} keys"


def _labels(labels: Any) -> str:
    """The first LABELS_SHOWN of a tokens line's labels (text.listed: a tokenizer's own spaces quoted)."""
    head = ", ".join(labels[:LABELS_SHOWN])
    more = len(labels) - LABELS_SHOWN
    return head + (f", ... ({more} more, {len(labels)} in all)" if more > 0 else "")


def summary_dict(
    s: Scenario, name: str = "", figures: dict[Any, Any] | None = None, proj: HeadOrigin | None = None
) -> dict[Any, Any]:
    """The bounded JSON of a large scenario: no matrix, no list that grows with T."""
    f = summarise(s) if figures is None else figures
    return {
        "name": name,
        "title": s.title,
        "summary": True,
        "why": f"T or T' above {REPORT_JSON_MAX}: a summary computed in row blocks (no T x T' matrix); {full_hint(s)}",
        "tokens_first": list(tokens_of(s, proj)[:LABELS_SHOWN]),
        "key_tokens_first": list(s.keys[:LABELS_SHOWN]),
        "shape": {"T": s.T, "T_k": s.T_k, "d_model": d_model_of(s, proj), "d_k": s.d_k, "d_v": s.d_v},
        "settings": settings(s),
        "params_qkv": params_qkv(s, proj),
        **{k: v for k, v in f.items() if k != "top_keys"},
        "top_keys": [
            {"row": t, "token": s.tokens[t - 1], "keys": [{"key": i + 1, "token": s.keys[i], "A": w} for i, w in ks]}
            for t, ks in f["top_keys"].items()
        ],
    }


def _params(s: Scenario, proj: HeadOrigin | None) -> str:
    """The params line: a model's head's or X's projections (text.params_line), else Q, K, V as given."""
    return params_line(s, proj) if proj is not None or s.projected else "params: n/a (Q, K, V given directly)"


def summary_text(
    s: Scenario, name: str = "", figures: dict[Any, Any] | None = None, proj: HeadOrigin | None = None
) -> str:
    """The text summary: the same numbers as summary_dict, one line each."""
    f = summarise(s) if figures is None else figures
    st, e, r = settings(s), f["entropy"], f["rank"]
    lines = [
        printable(s.title),
        *([f"scenario: {printable(name)}"] if name else []),
        shape_line(s, proj),
        f"settings: mask = {st['mask']}{f' (window {s.window})' if s.window else ''}   padding = {st['padding']}"
        f"   fill = {st['fill']}   c = {fmt_num(st['c'])}   scaled = {str(st['scaled']).lower()}"
        f"   (scale = {fmt_num(st['scale'])})   dtype = {st['dtype']}",
        "tokens: " + _labels(listed(tokens_of(s, proj))),
        "keys:   " + _labels(keys_line(s, proj)),
        "",
        f"Summary: {_sizes(s)}, above {REPORT_TEXT_MAX}, so no matrix is printed ({everything_hint(s)}).",
        f"Each figure below is computed in blocks of {stream.BLOCK} rows, {stream.TILE} keys at a time "
        "(each row's max,",
        "then e^(x - max)): no T x T' matrix is stored.",
        "",
    ]
    if "mean" in e:
        lines += [
            f"H(A_t) bits: mean {e['mean']:.3f}   median {e['median']:.3f}   min {e['min']:.3f} (row {e['min_row']})"
            f"   max {e['max']:.3f} (row {e['max_row']})   mean 2^H {e['mean_effective_tokens']:.2f}",
        ]
    lines.append(f"NaN rows: {e['nan_rows']} of {e['rows']}")
    counts = f["entropy_over_ceiling_histogram"]["counts"]
    lines.append(
        f"H / log2(keys seen) of the {sum(counts)} non-NaN rows that see 2 keys or more, rows per 1/16 from 0 to 1: "
        + " ".join(map(str, counts))
    )
    lines += ["", "top keys of some rows (A):"]
    for t, ks in f["top_keys"].items():
        kp = "t" if s.keys is s.tokens else "k"  # self-attention: the keys are the tokens
        keys = ", ".join(f"{_named(s.keys[i], kp, i + 1)} {w:.3f}" for i, w in ks) or "NaN row (no key it may see)"
        lines.append(f"  {_named(s.tokens[t - 1], 't', t)}: {keys}")
    lm = f["largest_masked_weight"]
    where = f" (row {lm['row']})" if lm["row"] else ""
    lines += [
        "",
        f"largest weight on a masked cell: {lm['A']:.3g}{where}"
        f"   max |row sum of A - 1|: {f['max_abs_row_sum_minus_1']:.3g}",
        f"rank(S) = {r['S']}   rank(Q) = {r['Q']}   rank(K) = {r['K']}   d_k = {r['d_k']}"
        "   (from QR factors of Q and K: S = Q1 (R1 R2^T) Q2^T)",
        "largest singular values of S: " + "  ".join(f"{v:.6g}" for v in f["singular_values_S"]),
    ]
    lines.append(_params(s, proj))
    return "\n".join(lines) + "\n"


def progress_to(stream_out: Any) -> Any:
    """A ``progress(done, total)`` for summarise that rewrites one line on ``stream_out`` (a terminal's
    stderr): at T = 16384 the summary takes seconds, and this says how far it got."""

    def progress(done: int, total: int) -> None:
        stream_out.write(f"\rsummarising: rows {done:,} of {total:,}")
        if done == total:
            stream_out.write("\r" + " " * 40 + "\r")  # the report itself starts on a clean line
        stream_out.flush()

    return progress
