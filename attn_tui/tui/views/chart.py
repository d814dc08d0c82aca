"""What the softmax chart shows for the selected row: its scores and its softmax, titled
with c and H(A_t) against the log₂t ceiling, as in the lesson's animation.

Every decision about the chart's axes is made here: the scores' axis (fixed while c and the row
change, re-fitted by doubling), the power of ten a huge or tiny row's bars are divided by (then an
axis fitted to the bars), and the weights' fixed (0, 1). The widget (widgets/softmax_chart.py) asks
:meth:`ChartView.bars` for the keys that fit its height and draws what it is given."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...core.diagnose import NO_CEILING, nan_cause
from ...core.labeltext import fit, repeats
from ..bar_values import score_bars
from ..fmt import knob
from ..state import State
from .weighting import chart_name, pinned_row, weighted_note, weighted_rows

NAN_WORDS = {
    "masked": "all masked, -inf fill",
    "inputs": "Q/K overflow",
    "scores": "S overflow",
    "sum": "S+M overflow",
    "other": "not a number",
}


AXIS_RANGE = (1e-3, 1e5)  # a fixed axis inside these; beyond, the chart scales its bars by a power of ten
PROBS_AXIS = (0, 1)  # the weights' axis: a probability, whatever the row
MASKED_MARK = " ×"  # a blocked key in the charts: no bar, this after its label
NAME_MAX = 8  # a bar's name at most ("t11 q", "t118 to…"), as a grid's row label
NAME_SHARE = 3  # the names may take a third of the narrower plot; else the positions alone ("t11")


@dataclass(frozen=True, eq=False)
class ChartBars:
    """What the chart draws for the keys that fit its height: the widget only draws it."""

    labels: list  # key labels ("t4 ×" masked, "t1 inf"), padded to one width
    scores: list  # the scores chart's bars: row t of S, divided by 10**power when huge or tiny
    score_axis: tuple | None  # (lo, hi) of the scores chart; None: fitted to the bars
    scores_titles: tuple  # the scores chart's title and its shorter forms, longest first (unit included)
    weights: np.ndarray  # (n,) A_t of the keys drawn
    probs_titles: tuple  # the weights chart's title and its shorter forms, longest first
    border_title: str  # plain text, " · top n/N" added when fewer of the keys row t sees are drawn
    ghost_scores: list | None = None  # the pinned row's bars in the same units, or None
    ghost_weights: np.ndarray | None = None  # the pinned row's weights of the keys drawn
    probs_axis: tuple = PROBS_AXIS


@dataclass(frozen=True, eq=False)
class ChartView:
    keys: tuple  # short key labels ("t1"), one per key
    blocked: np.ndarray  # (T',) True where the query may not see the key
    scores: np.ndarray  # (T',) row t of S
    weights: np.ndarray  # (T',) row t of A
    scores_title: str  # "c·q·k/√d_k" or "c·q·k" (unscaled), "… axis 2× wider"; the chart adds its unit and the row
    row: str  # the query token's short label
    probs_title: str  # "A_t c=1.00 H=0.76/log₂4=2.00", or why the row is NaN
    score_axis: tuple | None  # (lo, hi) of the scores chart, fixed while c, the row and the scaling
    # change; None (an axis fitted to the bars) when the scores are too large or too small to print
    border_title: str  # plain text; the chart adds " · top n/N" (N: keys row t sees) when it shows fewer keys
    ghost_scores: np.ndarray | None = None  # the pinned state's row t of S (drawn as ┃ ticks), or None
    ghost_weights: np.ndarray | None = None  # the pinned state's row t of A
    ghost_blocked: np.ndarray | None = None  # the pinned state's mask of row t (its own, not today's)
    # probs_title's shorter forms for a narrow plot, longest first: c and log₂t kept as long as they fit
    # ("A_t c=10.83 H=0.00/log₂4", "A_t c=10.83 H=0.00"), then "A_t H=0.00" (the border title has them all)
    probs_shorter: tuple = ()
    scores_plain: str = ""  # scores_title without the axis words: the shortest form of the scores' title
    names: tuple = ()  # a sequence whose labels repeat: each key's position and token ("t11 q"); () else

    def bars(self, room: int, width: int = 0) -> ChartBars:
        """The bars for a chart with ``room`` lines for bars: every key if they fit, else the heaviest;
        named "t11 q" (``names``) when those fit a third of ``width`` (the narrower plot), else "t11"."""
        keys = keys_that_fit(self.weights, room)
        blocked = np.asarray(self.blocked)[keys]
        names = [self.names[i] for i in keys] if self.names else []
        long = names and max(map(len, names)) + len(MASKED_MARK) <= width // NAME_SHARE
        labels = key_labels(names if long else [self.keys[i] for i in keys], blocked, self.scores[keys])
        scores, power = score_bars(self.scores[keys], blocked)
        unit = f" ×1e{power}" if power else ""
        ghost, ghost_weights = None, None
        if self.ghost_weights is not None:  # the pin's scores under the pin's own mask
            assert self.ghost_scores is not None  # set with ghost_weights (the pinned row)
            pinned, ghost_power = score_bars(self.ghost_scores[keys], np.asarray(self.ghost_blocked)[keys])
            ghost = pinned if ghost_power == power else None  # the pinned row in the bars' own units
            ghost_weights = self.ghost_weights[keys]
        seen = int(np.count_nonzero(~np.asarray(self.blocked)))  # the keys row t may see, not T'
        drawn = int(np.count_nonzero(~blocked))  # of those keys: a key row t cannot see is drawn ×, not counted
        some = f" · top {drawn}/{seen}" if drawn < seen else ""  # "top 1/1" said nothing was left out
        return ChartBars(
            labels=labels,
            scores=scores,
            score_axis=None if power else self.score_axis,  # bars divided by 10**power: a fitted axis
            scores_titles=(  # the border names the row: the row goes first
                f"{self.scores_title}{unit}  row {self.row}",
                f"{self.scores_title}{unit}",
                f"{self.scores_plain or self.scores_title}{unit}",
            ),
            weights=self.weights[keys],
            probs_titles=(self.probs_title, *self.probs_shorter),
            border_title=self.border_title + some,
            ghost_scores=ghost,
            ghost_weights=ghost_weights,
        )


def keys_that_fit(weights, room: int) -> np.ndarray:
    """Key indices to draw: all if they fit ``room`` lines (one bar a line), else the heaviest, in order."""
    n = len(weights)
    if n <= room:
        return np.arange(n)
    w = np.nan_to_num(np.asarray(weights, dtype=np.float64), nan=-1.0)
    return np.sort(np.argsort(-w, kind="stable")[:room])


def key_labels(labels, blocked, scores) -> list[str]:
    """Bar labels: "t4 ×" for a masked key, "t1 inf" / "t1 NaN" for a score that is not a number;
    all padded to one width, plus a space before the bar, so they line up on the left."""
    out = []
    for lab, b, x in zip(labels, blocked, np.asarray(scores, dtype=np.float64)):
        mark = MASKED_MARK if b else "" if np.isfinite(x) else " NaN" if np.isnan(x) else (" inf" if x > 0 else " -inf")
        out.append(lab + mark)
    width = max((len(x) for x in out), default=0) + 1  # one space between a label and its bar
    return [x.ljust(width) for x in out]  # plotext right-aligns labels: equal widths line them up


def short(label: str) -> str:
    """A label's first word: "t4 it" -> "t4"."""
    return label.split()[0] if label.split() else label


@lru_cache(maxsize=4)
def short_keys(keys: tuple) -> tuple:
    """Each key label's first word, once per label tuple (16384 of them at large T)."""
    return tuple(short(k) for k in keys)


@lru_cache(maxsize=4)
def bar_names(keys: tuple) -> tuple:
    """Each key label in NAME_MAX characters, its position kept ("t118 to…"), once per label tuple."""
    return tuple(fit(k, NAME_MAX) for k in keys)


def entropy_text(state: State) -> tuple[str, str]:
    """("0.46", "log₂4=2.00"): H(A_t) and the ceiling over the visible keys, or
    ("NaN", ...) for a NaN row and "—" as the ceiling of a row that sees no key."""
    t, tr = state.row, state.trace
    top = float(state.ceiling[t])
    ceiling = f"log₂{int((~tr.blocked[t]).sum())}={top:.2f}" if np.isfinite(top) else NO_CEILING
    h = float(tr.H[t])
    return ("NaN" if np.isnan(h) else f"{h:.2f}"), ceiling


def shorter_titles(c: float, h: str, ceiling: str, name: str = "A_t") -> tuple[str, str, str]:
    """The A_t title's shorter forms, longest first: "log₂4=2.00" loses its name ("H=0.76 of 2.00":
    "H=0.76/log₂4" read as a title cut short), then the ceiling goes, then c (the border title says both)."""
    top = ceiling.split("=")[-1]  # "2.00" (or "—" for a row that sees no key)
    return f"{name} c={knob(c, 2)} H={h} of {top}", f"{name} c={knob(c, 2)} H={h}", f"{name} H={h}"


def score_axis(state: State) -> tuple[float, float, int]:
    """(lo, hi, k): the scores chart's axis, the same for every row and every c.

    It is twice the range of the scores at the operating point (c = 1, scaled by 1/√d_k) over
    the visible cells of S, an input-only figure (room for c up to 2, or the raw scores at
    d_k = 4), the 0.5 % most extreme cells left out so that one outlier among thousands of
    cells does not flatten every row; times 2**k, where k ≥ 0 is the least power of two that
    holds every visible score of the selected row now, on each side of 0. So `+` lengthens the bars against a
    fixed axis, and the axis re-fits (doubles) only when a bar would be clipped; the title
    then says ×2**k.
    """
    s, tr, t = state.scenario, state.trace, state.row
    if state.large:
        return _row_axis(state)
    S = tr.S.astype(np.float64)
    seen = ~tr.blocked & np.isfinite(S)
    if not seen[t].any() or s.scale == 0:
        return -1.0, 1.0, 0
    base = S[seen] * (1.0 / (s.scale * np.sqrt(s.d_k)))  # the scores at c = 1, scaled
    q_lo, q_hi = np.quantile(base, [0.005, 0.995]) if base.size > 200 else (base.min(), base.max())
    lo, hi = (at_precision(2 * x, tr.S.dtype) for x in (min(0.0, float(q_lo)), max(0.0, float(q_hi))))
    row = S[t][seen[t]]
    now_lo, now_hi = min(0.0, float(row.min())), max(0.0, float(row.max()))
    if not (np.isfinite(lo) and np.isfinite(hi) and np.isfinite(now_lo) and np.isfinite(now_hi)) or lo == hi:
        return -1.0, 1.0, 0
    if (now_lo < 0 and lo == 0) or (now_hi > 0 and hi == 0):  # a side the quantiles left out: both sides
        lo, hi = -max(-lo, hi), max(-lo, hi)
    # Each side holds the row's bars on that side: the axis is asymmetric, so the larger |score| is not
    # enough (a random row's -119 against an axis ×32 of -27.5 .. 166 was drawn cut at -27.5).
    need = max(now_lo / lo if lo else 0.0, now_hi / hi if hi else 0.0)
    k = max(0, int(np.ceil(np.log2(need) - 1e-9))) if need > 0 else 0
    lo, hi = (float(f"{x * 2.0**k:.10g}") for x in (lo, hi))  # rounding of S / scale: no jitter
    return lo, hi, k


def at_precision(x: float, dtype) -> float:
    """``x`` to the decimal digits ``dtype`` holds (float16: 3): S computed in float16 and divided by
    c/√d_k is 6.0014 where the inputs say 6, and the axis printed 0.0 12.0 24.0 36.0 48.0 for 0 … 48."""
    digits = min(10, np.finfo(dtype).precision) if np.issubdtype(dtype, np.floating) else 10
    return float(f"{x:.{digits}g}")


def _row_axis(state: State) -> tuple[float, float, int]:
    """score_axis for a large state, from the selected row alone (the whole S is not read):
    twice the range of its visible scores at the operating point, so `+` still lengthens the
    bars against it until they double; it re-fits when the row changes."""
    s, tr, t = state.scenario, state.trace, state.row
    S = np.asarray(tr.S[t], dtype=np.float64)
    seen = ~np.asarray(tr.blocked[t]) & np.isfinite(S)
    if not seen.any() or s.scale == 0:
        return -1.0, 1.0, 0
    base = S[seen] * (1.0 / (s.scale * np.sqrt(s.d_k)))
    lo, hi = (at_precision(2 * x, tr.S.dtype) for x in (min(0.0, float(base.min())), max(0.0, float(base.max()))))
    span, now = max(-lo, hi), float(np.abs(S[seen]).max())
    if not np.isfinite(span) or span == 0:
        return -1.0, 1.0, 0
    k = max(0, int(np.ceil(np.log2(now / span) - 1e-9))) if now > 0 else 0
    return float(f"{lo * 2.0**k:.10g}"), float(f"{hi * 2.0**k:.10g}"), k


def chart_view(state: State) -> ChartView:
    s, tr, t = state.scenario, state.trace, state.row
    h, ceiling = entropy_text(state)
    kind = "masked" if state.large else nan_cause(tr, t).kind if t in tr.nan_rows else ""  # large: see LazyTrace
    name = chart_name(state)  # A_t, or its weighted form (State.weighting)
    probs = f"A_t NaN: {NAN_WORDS[kind]}" if t in tr.nan_rows else f"{name} c={knob(s.c, 2)} H={h}/{ceiling}"
    row = short(s.token_labels[t])
    lo, hi, k = score_axis(state)
    fixed = AXIS_RANGE[0] <= max(-lo, hi) < AXIS_RANGE[1]
    scale = "c·q·k/√d_k" if s.scaled else "c·q·k"
    pin = state.compared
    ghost = (
        {}
        if pin is None
        else {
            "ghost_scores": pin.trace.S[t],
            "ghost_weights": pinned_row(state, t),  # under the weighting the bars show
            "ghost_blocked": pin.trace.blocked[t],
        }
    )
    pinned = "" if pin is None else f" · pin H={float(pin.trace.H[t]):.2f}"
    return ChartView(
        keys=short_keys(s.key_labels),
        names=bar_names(s.key_labels) if repeats(s.keys) else (),  # positioned: "t11 q"
        blocked=tr.blocked[t],
        scores=tr.S[t],
        weights=weighted_rows(state, tr.A[t]),
        scores_title=scale + (f" axis {2**k}× wider" if k and fixed else ""),  # labels stay true values
        scores_plain=scale,
        row=row,
        probs_title=probs,
        probs_shorter=() if t in tr.nan_rows else shorter_titles(s.c, h, ceiling, name),
        score_axis=(lo, hi) if fixed else None,
        border_title=f"softmax row {row[:12]}: c={knob(s.c, 3)} H={h} bits of {ceiling}{pinned}{weighted_note(state)}",
        **ghost,
    )
