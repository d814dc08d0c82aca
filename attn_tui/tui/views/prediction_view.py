"""What the token view and the model view say of the model's own prediction at the selected position: its
top next tokens with their probabilities, and each part's share of the top token's logit, ranked (direct
logit attribution, core/heads/prediction.py), each head with where it looks from here (the model view's
words: prev, self, after copy, ...).

"predicts 'r' 1.000; L1.H2 +9.2 (looks at t4 'r', after copy)" is the headline: the top token, and the
part that put most of its logit there. A source with no model (a file of heads) says why in one line.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text

from ...core.heads.captured_top import predict_source
from ...core.heads.captured_top import why_none as why_not
from ...core.heads.prediction import Prediction, how_they_sum, p_text
from ...core.heads.query_top import HeadTop, looks_at, query_tops
from ..state import State

OWN_WEIGHTS = " · the model's own weights: c, the mask and edits do not apply to it"
ONE_HEAD = "no prediction: one head here, not a model (open induction-demo for a model's next token)"


class PartLine(NamedTuple):
    """One part's line: its head (layer, head), None for the direct path, and its words."""

    head: tuple | None
    text: str


class PredictionView(NamedTuple):
    headline: str  # predicts 'r' 1.000; L1.H2 +9.2 (looks at t4 'r', after copy)
    top: str  # next: 'r' 1.000 · 'y' 1.0e-05 · ...
    sums: str  # what the parts are and how they sum to the logit
    lead: str  # the token view's words before the shares: "the logit of 'r', 20.69, as shares, ... (attention-only"
    parts: tuple  # PartLine, ranked, largest share first


def edited_away(state: State) -> str | None:
    """Why the model's own heads and prediction are not shown at the selected row, when a token was added
    or deleted (or relabelled) since the model read its text: row t here is not the model's position t
    (a review found "predicts ' dictionary'" under a query the model never read); None when they align."""
    ref, s = state.head, state.scenario
    if ref is None:
        return None
    src = ref.source
    read = ref.labels[0] if ref.labels else None
    if (s.T, s.T_k) == (src.T, src.T_k) and (read is None or tuple(s.tokens) == tuple(read)):
        return None
    again = ", i runs the model on new tokens" if src.model is not None else ""
    return (
        f"the model read {src.T} tokens and {s.T} are here ({_change(src.T - s.T, src.T_k - s.T_k)}): its own "
        f"heads and prediction are of the text it read, so they are not shown · ctrl+z undoes the edit{again}"
    )


def _change(fewer: int, fewer_keys: int) -> str:
    """What an edit did to the tokens, in words: 'a token deleted', '2 tokens added', 'a token changed'."""
    n = fewer or fewer_keys
    what = "token" if fewer else "key"
    if n == 0:
        return "a token changed"
    count = f"a {what}" if abs(n) == 1 else f"{abs(n)} {what}s"
    return f"{count} {'deleted' if n > 0 else 'added'}"


def why_none(state: State) -> str | None:
    """The one line a view shows instead of a prediction, or None when the State's source has one."""
    if state.head is None:
        return ONE_HEAD
    return edited_away(state) or why_not(state.head.source)


def prediction_at(state: State) -> Prediction | None:
    """The model's prediction after the selected query (None: why_none says why): a built-in's, or the
    one a captured file stores (with the heads' direct parts when it holds what they need)."""
    if why_none(state) or state.head is None:  # why_none says ONE_HEAD when there is no head
        return None
    return predict_source(state.head.source, state.row)


def reads_file(state: State) -> bool:
    """True when the prediction reads every head's row t from a file (a capture's heads' direct parts):
    the screens compute it in a worker."""
    top = getattr(state.head.source, "top", None) if state.head is not None else None
    return top is not None and top.readout


def predicted(state: State, tops: list[HeadTop] | None = None) -> PredictionView | str:
    """What a view shows of the prediction: its PredictionView, or the one line saying why there is none
    (or what a file's row could not be read for: a non-finite top_readout, one line)."""
    try:
        p = prediction_at(state)
        if p is not None:
            return prediction_view(state, p, tops)
        why = why_none(state)
        assert why is not None  # no prediction: why_none says why (predict_source)
        return why
    except ValueError as exc:
        return str(exc)


def _looks(state: State, tops) -> dict:
    assert state.head is not None  # a prediction is of a head's source (prediction_at)
    src = state.head.source
    keys = src.key_tokens or src.tokens
    out = {}
    for (layer, head), (j, why) in looks_at(src, state.row, tops).items():
        out[layer, head] = f"looks at t{j + 1} {str(keys[j]).strip() or keys[j]!r}" + (f", {why}" if why else "")
    return out


def prediction_view(state: State, p: Prediction, tops: list[HeadTop] | None = None) -> PredictionView:
    """The words for ``p`` on ``state``; ``tops``: every head's top key at the query (query_tops, every
    layer; read here when not given)."""
    assert state.head is not None  # a prediction is of a head's source (prediction_at)
    src = state.head.source
    tok, q = p.top[0]
    top = "next: " + " · ".join(f"{t!r} {p_text(v)}" for t, v in p.top)
    if not p.parts:  # a captured file without what the heads' parts need: the top tokens, and why no parts
        return PredictionView(f"predicts {tok!r} {p_text(q)} (the model's own, stored)", top, p.legend, p.legend, ())
    looks = _looks(state, query_tops(src, state.row, n=1) if tops is None else tops)
    lines = []
    for x in p.parts:
        name = f"L{x.layer}.H{x.head}" if x.is_head else p.direct_name
        why = looks.get((x.layer, x.head)) if x.is_head else None
        lines.append(PartLine((x.layer, x.head) if x.is_head else None, _part(name, signed(x.logit, 2), why)))
    first = p.heads[0] if p.captured and p.heads else p.parts[0]  # a file's: the head with the largest part
    name = f"L{first.layer}.H{first.head}" if first.is_head else p.direct_name
    why = looks.get((first.layer, first.head)) if first.is_head else None
    headline = f"predicts {tok!r} {p_text(q)}; " + _part(name, signed(first.logit, 1), why)
    lead = f"the logit of {tok!r}, {p.logit:.2f}, as shares, largest first, summing to it exactly (attention-only"
    lead += ", the final norm's 1/σ held" if p.has_norm else ""
    if p.captured:  # the heads' direct parts, and the rest: what the capture does not split
        lead = f"the logit of {tok!r}, {p.logit:.2f}: the heads' direct parts (the final norm's 1/σ held), "
        lead += "largest first, and the rest, the logit minus them (embedding, MLPs, biases: not captured"
    sums = f"the logit of {tok!r}, {p.logit:.2f}, as each part's share, largest first: {how_they_sum(p)}"
    return PredictionView(headline, top, sums, lead, tuple(lines))


def token_lines(v: PredictionView, current: tuple | None) -> Text:
    """The token view's lines: the headline, the top five, the shares on one line (``current``, the
    head shown, in bold)."""
    out = Text()
    out.append(v.headline, style="bold")
    out.append(OWN_WEIGHTS, style="dim")  # the text above follows c and edits; this does not (learner item 3)
    if not v.parts:
        out.append(f"\n{v.top}\n")
        out.append(v.lead, style="dim")
        return out
    out.append(f"\n{v.top}\n{v.lead}; n: the next head): ")
    for k, line in enumerate(v.parts):
        out.append(" · " if k else "")
        out.append(line.text.split(" (")[0], style="bold reverse" if line.head == current else "")
    return out


def model_lines(v: PredictionView, current: tuple) -> Text:
    """The model view's block: headline, top five, how the shares sum, then a line a part, ``current`` ▶."""
    out = Text()
    out.append(v.headline, style="bold")
    out.append(f"\n{v.top}\n")
    out.append(v.sums, style="dim")
    for line in v.parts:
        out.append(("\n▶ " if line.head == current else "\n  ") + line.text)
    return out


def signed(v: float, digits: int) -> str:
    """A share with its sign, "+0.35" / "-1.13"; one that rounds to zero is "0.00", not "-0.00" (review)."""
    text = f"{v:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def _part(name: str, share: str, why: str | None) -> str:
    return f"{name} {share}" + (f" ({why})" if why else "")
