"""`attn-tui heads --query t`'s prediction: the model's top next tokens after query t and each part's share
of the top one's logit (core/heads/prediction.py), as JSON fields and as text lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.heads.captured_top import predict_source, why_none
from ..core.heads.prediction import Prediction, how_they_sum, p_text
from ..core.heads.query_top import looks_at, query_tops
from ..core.heads.source import HeadSource

if TYPE_CHECKING:
    from typing import Any


def prediction_of(src: HeadSource, t: int) -> Prediction | None:
    """The prediction after query ``t`` (0-based): a built-in's or a captured file's; None for a source with
    none (why_none says why)."""
    return predict_source(src, t)


def prediction_dict(p: Prediction | None) -> dict[Any, Any] | None:
    """JSON's "prediction": {"token", "logit", "top": [{"token", "p"}], "by_head": [{"layer", "head", "logit"}]
    (ranked, largest share first), "direct"}, or None (null) when there is none."""
    if p is None:
        return None
    out = {"token": p.top[0][0], "logit": p.logit, "top": [{"token": tok, "p": q} for tok, q in p.top]}
    if p.captured and not p.parts:  # a captured file with the top tokens only: why no parts
        return out | {"by_head_none": p.legend}
    out["by_head"] = [{"layer": x.layer, "head": x.head, "logit": x.logit} for x in p.heads]
    return out | {"rest" if p.captured else "direct": p.direct}


def prediction_lines(src: HeadSource, t: int, p: Prediction | None) -> list[Any]:
    """The text: the top tokens, then a line a part ("  +9.191  L1.H2, looks at t4 'r' (after copy)"), then the sum."""
    if p is None:
        return ["", why_none(src)]
    top = " · ".join(f"{tok!r} {p_text(q)}" for tok, q in p.top)
    looks = looks_at(src, t, query_tops(src, t, n=1))
    keys = src.key_tokens or src.tokens
    out = ["", f"what the model predicts after t{t + 1} ({src.tokens[t]!r}), its top {len(p.top)}: {top}"]
    if not p.parts:
        return [*out, p.legend]
    out.append(f"the logit of {p.top[0][0]!r}, {p.logit:.3f}, as each part's share, largest first: {how_they_sum(p)}")
    for x in p.parts:  # the share first: the list is ranked by it
        if not x.is_head:
            out.append(f"  {x.logit:+8.3f}  {p.direct_name}")
            continue
        j, why = looks.get((x.layer, x.head), (None, ""))
        at = "" if j is None else f", looks at t{j + 1} {keys[j]!r}" + (f" ({why})" if why else "")
        out.append(f"  {x.logit:+8.3f}  L{x.layer}.H{x.head}{at}")
    out.append(f"  sum of the parts {sum(x.logit for x in p.parts):.3f} (the logit {p.logit:.3f})")
    return out
