"""`attn-tui heads`: every head's reading as a table (text) or JSON, from core.heads.

Layers and heads count from 0 (as transformers and BertViz number them); token positions in a
head's reading count from 1, as the lesson's t1..tT. A score that is not defined is "-" in the
text and null in the JSON (induction and duplicate when no token repeats)."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from ..core.heads.capture_check import stored_by_head, stored_check
from ..core.heads.captured_top import why_none
from ..core.heads.combine import combine
from ..core.heads.query_top import query_tops
from ..core.heads.readings import FIELDS, NAMES_A_HEAD, READINGS
from ..core.heads.source import HeadSource, all_readings, own_weights_diffs
from ..core.mask_kinds import label, of_label
from .prediction_text import prediction_dict, prediction_lines, prediction_of
from .text import listed

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

TOKENS_SHOWN = 24  # the text's tokens line: a 4,096-token file is not printed whole
COLUMNS = ("layer", "head", *(r.text for r in READINGS))  # the text's table heads: core.heads.READINGS


def _num(x: Any, width: int = 9) -> Any:
    return f"{'-':>{width}}" if x is None else f"{x:>{width}.3f}"


def _mask(kind: str, w: Any) -> Any:
    return label(kind, w)


def query_rows(src: HeadSource, t: int, layer: int | None = None, progress: Any | None = None) -> list[dict[Any, Any]]:
    """[{"layer", "head", "query": {"position": t + 1, "top": [{position, token, weight}, ...]}}]: where
    query ``t`` (0-based) looks in each head, its five heaviest keys, weight descending; positions from 1.
    One row of A a head, read a head at a time (query_tops), never a head's readings."""
    keys = src.key_tokens or src.tokens
    return [
        {
            "layer": h.layer,
            "head": h.head,
            "query": {
                "position": t + 1,
                "top": [{"position": j + 1, "token": keys[j], "weight": w} for j, w in h.top],
            },
        }
        for h in query_tops(src, t, layer, progress=progress)
    ]


def _about(src: HeadSource) -> dict[Any, Any]:
    return {
        "title": src.title,
        "source": src.source,
        "tokens": list(src.tokens),
        "n_layers": src.n_layers,
        "n_heads": src.n_heads,
        "n_kv_heads": src.n_kv_heads,
        "kv_head": list(src.kv_head),
        "T": src.T,
        "T_k": src.T_k,
        "d_k": src.d_k,
        "scale": list(src.scales),
        "mask": [_mask(*m) for m in src.masks],
    }


def heads_data(
    src: HeadSource, layer: int | None = None, query: int | None = None, progress: Any | None = None
) -> dict[Any, Any]:
    """What the command prints: the source, every head's readings (a dict each), the combines; with
    ``query`` (0-based), only where that query looks in each head (query_rows): no readings, no combine
    (every head's readings of a 64 x 64-head, 16,384-token file took hours before one row was printed)."""
    if query is not None:
        heads = query_rows(src, query, layer, progress)
        p = prediction_of(src, query)
        why = {} if p is not None else {"prediction_none": why_none(src)}
        return {**_about(src), "heads": heads, "prediction": prediction_dict(p), **why}
    readings = all_readings(src, layer, progress)
    rows = [r.as_dict() for r in readings]
    stored = stored_by_head(src)  # a capture's check of each head against this A: read, not recomputed
    if src.has("A") or stored is not None:  # a layer's heads at once
        layers: Sequence[int] = sorted({row["layer"] for row in rows})
        diffs = {ly: stored[ly] if stored else _own_diffs(src, ly) for ly in layers}
        for row in rows:
            row["own_A_max_abs_diff"] = diffs[row["layer"]][row["head"]]
    layers = range(src.n_layers) if layer is None else [layer]
    combines = [c for c in (combine(src, ly) for ly in layers) if c is not None]
    return {
        **_about(src),
        "heads": rows,
        "combine": [
            {"layer": c.layer, "max_abs_diff": c.max_abs_diff, "tolerance": c.tolerance, "holds": c.holds}
            for c in combines
        ],
    }


def _own_diffs(src: HeadSource, layer: int) -> list[float]:
    """Each head's max |ΔA| of ``layer`` recomputed: heads_data asks for it only of a source holding A."""
    diffs = own_weights_diffs(src, layer)
    assert diffs is not None  # src.has("A"): nothing stored, so heads_data checked it holds A
    return diffs.tolist()


def _finite(x: Any) -> Any:
    """x with every non-finite float (a head whose rows are all NaN) as None: JSON's null."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def heads_json(src: HeadSource, layer: int | None = None, query: int | None = None, progress: Any | None = None) -> str:
    return json.dumps(_finite(heads_data(src, layer, query, progress)), indent=1, allow_nan=False) + "\n"


def _best(rows: Any, field: Any) -> Any:
    scored = [r for r in rows if r[field] is not None]
    return max(scored, key=lambda r: r[field]) if scored else None


def _per_layer(values: Any) -> str:
    """One value for every layer, or each layer's in order (layer 0 first)."""
    return values[0] if len(set(values)) == 1 else "by layer " + " | ".join(values)


def tokens_line(tokens: Any, most: int = TOKENS_SHOWN) -> str:
    """ "tokens: t1 q, t2 w, …": the first ``most`` as the lesson writes them (positions when a token
    repeats, core.labeltext.positioned), then how many more."""
    shown = ", ".join(listed(tokens)[:most])  # a tokenizer's own spaces quoted (text.listed)
    more = len(tokens) - most
    return f"tokens: {shown}" + (f", ... ({more} more, {len(tokens)} in all)" if more > 0 else "")


def heads_text(src: HeadSource, layer: int | None = None, query: int | None = None, progress: Any | None = None) -> str:
    d = heads_data(src, layer, query, progress)
    out = [
        d["title"],
        f"{d['n_layers']} layers x {d['n_heads']} heads ({d['n_kv_heads']} K/V heads), T = {d['T']} query tokens, "
        f"T' = {d['T_k']} keys, d_k = {d['d_k']}; layers and heads counted from 0, positions from 1",
    ]
    out.append(tokens_line(src.tokens))
    if d["source"]:
        out.append(f"source: {d['source']}")
    figure = stored_check(src)  # a captured model's file: its check, as the capture printed it
    if figure is not None:
        out.append(figure.words())
    out.append(f"mask: {_per_layer(d['mask'])}; scale: {_per_layer([f'{s:.6g}' for s in d['scale']])}")
    if query is not None:  # one row of A a head, no readings (heads_data)
        return (
            "\n".join(out + _looks(d, src.tokens, query) + prediction_lines(src, query, prediction_of(src, query)))
            + "\n"
        )
    out += [
        "",
        "H mean: mean row entropy H(A_t) in bits; log2 ceil: mean over rows of log2 of the keys each row sees",
        "(a uniform row's entropy). prev = mean A[t, t-1], first = mean A[t, 1], self = mean A[t, t] over t = 2..T;",
        "over the rows t whose token occurred before: induction = mean of the weight on the tokens that followed",
        "its earlier occurrences (sum A[t, j+1] over every earlier j with token j = token t), duplicate = mean of",
        "the weight on those earlier occurrences (sum A[t, j]); - when no token repeats.",
        "",
        " ".join(f"{c:>9}" for c in COLUMNS),
    ]
    for r in d["heads"]:
        out.append(f"{r['layer']:>9} {r['head']:>9} " + " ".join(_num(r[f]) for f in FIELDS))
    out += _verdicts(d)
    return "\n".join(out) + "\n"


def _looks(d: Any, tokens: Any, t: int) -> list[Any]:
    """Where query t looks in each head: its five heaviest keys, "t10 'p' 0.879", heaviest first (tokens
    quoted: a captured token's leading space shows)."""
    out = ["", f"where query t{t + 1} ({tokens[t]!r}) looks: each head's five heaviest keys, weight descending"]
    for r in d["heads"]:
        keys = " · ".join(f"t{k['position']} {k['token']!r} {k['weight']:.3f}" for k in r["query"]["top"])
        out.append(f"  L{r['layer']}.H{r['head']}  {keys or 'every key masked'}")
    return out


def _verdicts(d: Any) -> list[Any]:
    out = [""]
    ceiling = "log2 t" if all(of_label(m).causal for m in d["mask"]) else "log2 of the keys each row sees"
    ceiling = f"the mean over rows of {ceiling}, the uniform row's entropy"
    for field, what in (("prev_token", "previous-token"), ("induction", "induction"), ("duplicate_token", "duplicate")):
        best = _best(d["heads"], field)
        if best is not None and best[field] < NAMES_A_HEAD:  # a highest reading, not a kind of head
            out.append(
                f"on this text no head's {field} reaches {NAMES_A_HEAD}; the highest: layer {best['layer']}, "
                f"head {best['head']}, {best[field]:.3f}"
            )
        elif best is not None:
            out.append(
                f"on this text, the strongest {what} head: layer {best['layer']}, head {best['head']} "
                f"({field} = {best[field]:.3f}); "
                f"its mean entropy {best['mean_entropy_bits']:.2f} bits of a mean {best['mean_ceiling_bits']:.2f}-bit "
                f"ceiling ({ceiling})"
            )
    if any("own_A_max_abs_diff" in r for r in d["heads"]):
        worst = max(r["own_A_max_abs_diff"] for r in d["heads"])
        out.append(f"A recomputed from Q, K against the model's own A: max |difference| = {worst:.3g}")
    for c in d["combine"]:
        out.append(
            f"layer {c['layer']}: concat(O_1..O_H) W_O = sum_h O_h W_O^(h), max |difference| = {c['max_abs_diff']:.3g} "
            f"({'within' if c['holds'] else 'BEYOND'} the float64 rounding bound {c['tolerance']:.3g})"
        )
    return out
