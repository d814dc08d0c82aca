"""`attn-tui heads NAME|FILE --rollout [--query ROWS] [--json]`: attention rollout (core.heads.rollout)
as text or JSON. Positions count from 1, as the lesson's t1..tT.

JSON: {"title", "source", "tokens", "T", "n_layers", "n_heads", "rows" (the query positions, from 1),
"rollout" (len(rows) x T: R's rows; every row, T x T, when no --query is given, up to 512 tokens)}.
Text: each row's largest entries, "t8 d ← t5 a 0.42 · t8 d 0.35 · …"."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from ..core.heads.rollout import check_rows, rollout, rollout_rows
from ..core.heads.source import HeadSource
from ..core.numparse import digits_hint, whole_digits

if TYPE_CHECKING:
    from typing import Any

TOP = 5  # the text's entries per row
WHAT = (
    "Attention rollout (Abnar & Zuidema 2020): each layer's heads averaged, the residual counted as half,\n"
    "R = Ã_{L-1} ... Ã_0 with Ã_l = ½ mean_h A_l + ½ I (layer 0 first; a query row that sees no key: e_t).\n"
    "R[t, j]: rollout's estimate of how much of position t after the last layer comes from input token j,\n"
    "under its assumptions (values, W_O and the MLPs left out; residual and attention half each); each row\n"
    "sums to 1. Its largest entries:"
)
SHOWN = 5e-4  # entries below this print as 0.000: left out


def parse_query(text: str | None, T: int) -> list[int] | None:
    """'1,5,9' -> [0, 4, 8] (0-based); None when not given. ValueError naming the bad item."""
    if text is None:
        return None
    rows = []
    for item in text.split(","):
        item = item.strip()
        if not whole_digits(item) or not 1 <= int(item) <= T:  # ASCII only: ١ and １２ were read as 1 and 12
            # a row named twice counts twice: "1,1" is no example of a valid query on one token
            valid = "1 token here: give --query 1" if T == 1 else f"{T} tokens here: give positions from 1 to {T}"
            raise ValueError(
                f"--query: {item[:20]!r} is not a position{digits_hint(item)}; {valid}"
                + ("" if T == 1 else f", e.g. --query 1,{T}")
            )
        rows.append(int(item) - 1)
    check_rows(len(rows), T)  # before any head is read
    return rows


def rollout_data(src: HeadSource, query: str | None, progress: Any | None = None) -> dict[Any, Any]:
    rows = parse_query(query, src.T)
    if rows is None:
        R, rows = rollout(src, progress), list(range(src.T))  # refuses above WHOLE, naming --query
    else:
        R = rollout_rows(src, rows, progress)
    return {
        "title": src.title,
        "source": src.source,
        "tokens": list(src.tokens),
        "T": src.T,
        "n_layers": src.n_layers,
        "n_heads": src.n_heads,
        "rows": [t + 1 for t in rows],
        "rollout": R,
    }


def rollout_json(src: HeadSource, query: str | None = None, progress: Any | None = None) -> str:
    d = rollout_data(src, query, progress)
    d["rollout"] = np.asarray(d["rollout"]).tolist()
    return json.dumps(d, indent=1, allow_nan=False) + "\n"


def _name(tokens: Any, t: int) -> str:
    return f"t{t + 1} {tokens[t]}"


def rollout_text(src: HeadSource, query: str | None = None, progress: Any | None = None) -> str:
    d = rollout_data(src, query, progress)
    out = [d["title"], f"{d['n_layers']} layers x {d['n_heads']} heads, T = {d['T']}", WHAT, ""]
    for t, row in zip(d["rows"], d["rollout"]):
        top = [j for j in np.argsort(-row, kind="stable")[:TOP] if row[j] >= SHOWN]
        out.append(f"{_name(src.tokens, t - 1)} ← " + " · ".join(f"{_name(src.tokens, j)} {row[j]:.3f}" for j in top))
    return "\n".join(out) + "\n"
