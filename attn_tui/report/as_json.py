"""The report as JSON: one scenario, or the whole lesson. Every string is valid UTF-8 (a file
name's undecodable bytes are escaped as in the refusals: core.limits.printable).

Non-finite numbers (NaN, ±inf: a fully masked row, a float16 mask) are written as
``null`` so that any JSON parser accepts the output (``json.dumps(allow_nan=False)``
guarantees no NaN/Infinity tokens). Row positions (``nan_rows``) count from 1, like
the lesson's t1..tT and a scenario's ``padding``.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np

from ..core import lenses
from ..core.diagnose import ceiling_bits, nan_causes, overflows
from ..core.heads import weighting
from ..core.limits import printable
from ..core.matrices import PROJECTION_INPUTS
from ..core.scenario import Scenario
from .text import RNG_NOTE, SWEEP_POINTS, d_model_of, lesson_numbers, params_qkv, settings, tokens_of

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace
    from attn_tui.core.heads.head_origin import HeadOrigin


def clean(x: Any) -> Any:
    """Plain JSON values: arrays -> nested lists, non-finite floats -> None."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, str) and not x.isascii():
        return _utf8(x)
    return x


def _utf8(text: str) -> str:
    """``text`` as valid UTF-8: a file name's undecodable bytes (os.fsdecode's lone surrogates,
    which a UTF-8 stdout writes raw, or not at all) become the \\udcff the refusals print."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return printable(text)
    return text


def dumps(obj: Any) -> str:
    return json.dumps(clean(obj), indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def scenario_dict(
    s: Scenario,
    name: str = "",
    trace: Trace | None = None,
    w_o_h: np.ndarray | None = None,
    proj: HeadOrigin | None = None,
) -> dict[Any, Any]:
    """Every input and intermediate of one scenario, shapes as in the core's Trace; with A its value-
    weighted form (core/heads/weighting.py) and, given the head's W_O^(h) (d_v, d_model), its info-weighted."""
    tr = s.run() if trace is None else trace
    ranks = lenses.rank_info(tr.S, tr.Q, tr.K)
    out: dict[str, Any] = {
        "name": name,
        "title": s.title,
        "tokens": list(tokens_of(s, proj)),
        "key_tokens": list(tokens_of(s, proj) if s.keys is s.tokens else s.keys),
        "features": list(s.features),
        "value_features": list(s.value_features),
        "shape": {"T": s.T, "T_k": s.T_k, "d_model": d_model_of(s, proj), "d_k": s.d_k, "d_v": s.d_v},
        "settings": settings(s),
    }
    if s.projected:
        out["inputs"] = {k: getattr(s, k) for k in PROJECTION_INPUTS if getattr(s, k) is not None}
    out.update(
        {
            "Q": tr.Q,
            "K": tr.K,
            "V": tr.V,
            "S": tr.S,
            "mask": tr.M,
            "blocked": tr.blocked,
            "S_masked": tr.S_masked,
            "A": tr.A,
            **weighted_a(tr, w_o_h),
            "O": tr.O,
            "row_entropy_bits": tr.H,
            "effective_tokens": tr.eff,
            "rank": {"S": tr.rank_S, "Q": tr.rank_Q, "K": tr.rank_K, "d_k": s.d_k},
            "singular_values_S": ranks["singular_values"],
            "params_qkv": params_qkv(s, proj),
            "params_with_W_O": _with_w_o(s, proj),
            "nan_rows": [t + 1 for t in tr.nan_rows],
            "nan_row_causes": [{"row": c.row + 1, "cause": c.kind, "why": c.short} for c in nan_causes(tr)],
            "overflow": overflows(tr),
            "entropy_ceiling_bits": ceiling_bits(tr.blocked),  # null: the row sees no key
        }
    )
    return out


def weighted_a(tr: Trace, w_o_h: np.ndarray | None = None) -> dict[Any, Any]:
    """{"A_value_weighted": A[t, j]·‖v_j‖/max‖v‖ (T, T')} and, with W_O^(h), "A_info_weighted"."""
    out = {}
    for kind in ("value", "info"):
        scale = weighting.scale_for(kind, tr.V, w_o_h)
        if scale is not None:
            out[weighting.JSON_KEYS[kind]] = weighting.weigh(tr.A, scale)
    return out


def _with_w_o(s: Scenario, proj: HeadOrigin | None) -> Any:
    """d_model (2 d_k + d_v) + d_v d_model: the projections and the output's, when they are known."""
    if s.projected:
        return lenses.param_count(s.d_model, s.d_k, s.d_v, with_output=True)
    return None if proj is None or proj.params is None else proj.params + s.d_v * proj.d_model


def scenario_json(s: Scenario, name: str = "", w_o_h: np.ndarray | None = None, proj: HeadOrigin | None = None) -> str:
    return dumps(scenario_dict(s, name, w_o_h=w_o_h, proj=proj))


def lesson_dict() -> dict[Any, Any]:
    """The whole lesson: both examples, the lenses' differences, the seeded experiments."""
    n = lesson_numbers()
    sat = n["saturation"]
    return {
        "lesson": "Lesson 08: Scaled Dot-Product Attention",
        "scenarios": {
            "lesson-handcrafted": scenario_dict(n["hand"], "lesson-handcrafted", n["trace"]),
            "lesson-pipeline": scenario_dict(n["pipe"], "lesson-pipeline", n["trace2"]),
        },
        "A_1_1": n["A_1_1"],
        "row_sums": n["row_sums"],
        "largest_upper_triangle": n["max_upper"],
        "max_abs_O1_minus_V1": n["diff_row1"],
        "params_qkv": n["params_qkv"],
        "nadaraya_watson_diff": n["nw_diff"],
        "box_kernel_diff": n["box_diff"],
        "rng_note": RNG_NOTE,
        "variance": [{"d_k": v["d_k"], "var": v["var"], "ratio": v["ratio"]} for v in n["variance"]],
        "saturation": {k: {"max": sat[k]["max"], "H": sat[k]["H"]} for k in ("unscaled", "scaled")}
        | {"log2_T": sat["log2_T"]},
        "sweep": [{"c": p["c"], "H": p["H"]} for p in n["sweep"]],
        "entropy_at_c": [{"c": c, "H": h} for c, h in zip(SWEEP_POINTS, n["H_at"])],
    }


def lesson_json() -> str:
    return dumps(lesson_dict())
