"""What A becomes when every score is 0 (the lenses' box-kernel switch), in the current mode.

Lesson 07's prefix average is the causal self-attention case only: without a mask every row is
uniform over all T′ keys, a sliding window averages the last w, padding drops the padded keys,
and a row with no key left to read is NaN. Pure: a Scenario in, one sentence out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.mask_kinds import MASK_KINDS

if TYPE_CHECKING:
    from attn_tui.core.scenario import Scenario


def zero_scores_words(s: Scenario) -> str:
    """'every score is 0: A is …' for the scenario ``s`` (its mask, window, padding, T′)."""
    pad = f", skipping the padded key{'s' if len(s.padding) > 1 else ''} {', '.join(map(str, s.padding))}"
    pad = pad if s.padding else ""
    nan = _fully_masked(s)
    kind = MASK_KINDS[s.mask]
    if kind.causal and not s.cross:
        what = (
            "Lesson 07's prefix average W_avg (row t: 1/t on tokens 1..t)"
            if not s.padding
            else (f"a prefix average over the keys each row may read{pad}")
        )
    elif kind.causal:
        what = f"row t uniform over keys 1..min(t, T′){pad}"
    elif kind.windowed:
        what = f"each row the average of its last w = {s.window} keys (1/min(t, w)){pad}"
    else:
        what = f"every row uniform over all T′ = {s.T_k} keys (1/{s.T_k} each){pad}: no mask, so not W_avg"
    return f"every score is 0, so each row of A is uniform over the keys it may read: {what}{nan}"


def _fully_masked(s: Scenario) -> str:
    """What a row with every key masked becomes: NaN with the −inf fill, else uniform over all keys."""
    if s.T * s.T_k > 4096 * 4096 or not s.blocked().all(axis=1).any():
        return ""
    if s.fill == "-inf":
        return "; a row with every key masked is NaN (−inf − (−inf))"
    return "; a row with every key masked is uniform over all T′ keys (every entry the same fill)"
