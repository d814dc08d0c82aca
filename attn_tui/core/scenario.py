"""Scenario: the inputs and settings of one attention computation, immutable.

Either X (T, d_model) with W_Q, W_K (d_model, d_k) and W_V (d_model, d_v) -- and
optionally Y (T', d_model) so that keys and values come from another sequence
(cross-attention) -- or Q (T, d_k), K (T', d_k) and optionally V (T', d_v) given
directly (V defaults to the identity, so O = A).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .attention import DTYPES, FILLS, MASKS, Trace, additive_mask, attention, blocked_cells
from .checks import check_matrix
from .labeltext import positioned
from .limits import MAX_T, shown
from .mask_kinds import MASK_KINDS
from .matrices import INPUTS

if TYPE_CHECKING:
    from typing import Any


def _frozen(a: np.ndarray) -> Any:
    if a is None:
        return None
    if isinstance(a, np.ndarray) and a.dtype == np.float64 and not a.flags.writeable and a.base is None:
        return a  # already one of ours (a with_() copy): immutable, so shared, not copied again
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a


def _given(a: np.ndarray | None) -> np.ndarray:
    """An input the scenario's form holds (validate: X, W_Q, W_K, W_V, and Y when cross; else Q and K)."""
    assert a is not None  # validate refused a scenario without it
    return a


@dataclass(frozen=True, eq=False)
class Scenario:
    title: str = "untitled"
    tokens: tuple[Any, ...] = ()
    X: np.ndarray | None = None
    W_Q: np.ndarray | None = None
    W_K: np.ndarray | None = None
    W_V: np.ndarray | None = None
    features: tuple[Any, ...] = ()
    Y: np.ndarray | None = None
    key_tokens: tuple[Any, ...] = ()
    Q: np.ndarray | None = None
    K: np.ndarray | None = None
    V: np.ndarray | None = None
    mask: str = "causal"
    padding: tuple[Any, ...] = ()
    window: int | None = None
    fill: str = "-1e9"
    c: float = 1.0
    scaled: bool = True
    dtype: str = "float64"
    focus_row: int | None = None  # the query row the explorer opens on, counted from 1 (None: row 1)

    def __post_init__(self) -> None:
        for name in INPUTS:
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        for name in ("tokens", "features", "key_tokens", "padding"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        validate(self)

    # -- shape facts ---------------------------------------------------------
    @property
    def projected(self) -> bool:
        """True when Q, K, V come from X through W_Q, W_K, W_V."""
        return self.X is not None

    @property
    def cross(self) -> bool:
        return self.Y is not None

    @property
    def T(self) -> Any:
        return _given(self.X if self.projected else self.Q).shape[0]

    @property
    def T_k(self) -> Any:
        if self.projected:
            return _given(self.Y if self.cross else self.X).shape[0]
        return _given(self.K).shape[0]

    @property
    def d_model(self) -> Any:
        return _given(self.X).shape[1] if self.projected else None

    @property
    def d_k(self) -> Any:
        return _given(self.W_Q if self.projected else self.Q).shape[1]

    @property
    def d_v(self) -> Any:
        if self.projected:
            return _given(self.W_V).shape[1]
        return self.V.shape[1] if self.V is not None else self.T_k

    @property
    def keys(self) -> Any:
        """Labels of the key tokens (the columns of S and A): the tokens themselves in self-attention,
        k1..kT' for keys of their own (cross-attention, or a Q/K scenario with T' != T)."""
        if self.key_tokens:
            return self.key_tokens
        self_keys = not self.cross and self.T_k == self.T
        return self.tokens if self_keys else tuple(f"k{i + 1}" for i in range(self.T_k))

    @property
    def token_labels(self) -> Any:
        """The query tokens as every pane, chart and line shows them: each with its position ("t11 q")
        when a label repeats (labeltext.positioned); files and JSON keep ``tokens``."""
        return positioned(self.tokens)

    @property
    def key_labels(self) -> Any:
        """The keys as shown: the token labels in self-attention, else ``keys`` positioned "k1 …"."""
        keys = self.keys
        return self.token_labels if keys is self.tokens else positioned(keys, "k")

    @property
    def scale(self) -> Any:
        """The number S is multiplied by: c/√d_k when scaled, c otherwise."""
        return self.c / np.sqrt(self.d_k) if self.scaled else self.c

    @property
    def value_features(self) -> Any:
        """Labels of O's columns: the first d_v feature names when W_V copies them (W_V = [I; 0],
        as in the lesson), else v1..v_dv (V's column j is then no input feature)."""
        W = self.W_V
        copies = W is not None and np.array_equal(W, np.eye(*np.shape(W)))
        if copies and self.features and self.d_v <= len(self.features):
            return tuple(self.features[: self.d_v])
        return tuple(f"v{j + 1}" for j in range(self.d_v))

    def with_(self, **changes: Any) -> Scenario:
        """A copy with ``changes`` applied (and validated)."""
        return replace(self, **changes)

    # -- computation ---------------------------------------------------------
    def qkv(self) -> Any:
        """(Q, K, V) in float64: projected from X (and Y), or as given."""
        if self.projected:
            X, src = _given(self.X), _given(self.Y if self.cross else self.X)
            return X @ _given(self.W_Q), src @ _given(self.W_K), src @ _given(self.W_V)
        V = self.V if self.V is not None else np.eye(self.T_k)
        return self.Q, self.K, V

    def blocked(self) -> Any:
        """(T, T') True where blocked. ``padding`` is 1-based, like the lesson's t1..tT."""
        pad = [p - 1 for p in self.padding]
        return blocked_cells(self.mask, self.T, self.T_k, pad, self.window)

    def run(self) -> Trace:
        """The whole pipeline: projections, scores, mask, softmax, output."""
        Q, K, V = self.qkv()
        dt = DTYPES[self.dtype]
        M = additive_mask(self.blocked(), self.fill, dt)
        return attention(Q, K, V, mask=M, scale=self.scale, dtype=dt)


_STRING_LABELS: list[Any] = []  # the last label tuples found all-strings (held, so `is` is safe): a with_() shares them


def _labels(s: Scenario, key: str, n: int, default: Any) -> None:
    labels = getattr(s, key)
    if not labels:
        object.__setattr__(s, key, tuple(f"{default}{i + 1}" for i in range(n)))
    elif len(labels) != n:
        raise ValueError(f"{key}: {len(labels)} labels for {n} rows/columns")
    elif not any(labels is ok for ok in _STRING_LABELS):
        if not all(isinstance(x, str) for x in labels):
            raise ValueError(f"{key}: labels must be strings")
        _STRING_LABELS[:] = [labels, *_STRING_LABELS[:7]]


def _shape(
    s: Scenario, name: str, rows: Any | None = None, cols: Any | None = None, rows_of: str = "", cols_of: str = ""
) -> Any:
    a = check_matrix(getattr(s, name), name)
    r, c = a.shape
    if rows is not None and r != rows:
        raise ValueError(f"{name}: has {r} rows, but {rows_of} needs {rows}")
    if cols is not None and c != cols:
        raise ValueError(f"{name}: has {c} columns, but {cols_of} needs {cols}")
    return a


def _positive_finite(x: Any) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return bool(np.isfinite(float(x))) and x > 0
    except OverflowError:  # an integer beyond float64, e.g. 10**400
        return False


def validate(s: Scenario) -> None:
    """Raise ValueError naming the key (and row/column) of the first problem: what makes any Scenario
    valid, whatever its size (what a door admits besides: core/limits.py, above its admit)."""
    if s.projected:
        _validate_projected(s)
    else:
        _validate_direct(s)
    _labels(s, "tokens", s.T, "t")
    if s.key_tokens or s.cross:
        _labels(s, "key_tokens", s.T_k, "k")
    _validate_mask(s)
    _validate_settings(s)


def _validate_projected(s: Scenario) -> None:
    """X with W_Q, W_K, W_V (and Y): their shapes agree."""
    for name in ("W_Q", "W_K", "W_V"):
        if getattr(s, name) is None:
            raise ValueError(f"{name}: missing; a scenario with X needs W_Q, W_K and W_V")
    for name in ("Q", "K", "V"):
        if getattr(s, name) is not None:
            raise ValueError(f"{name}: give either X with W_Q/W_K/W_V or Q/K/V, not both")
    X = _shape(s, "X")
    dm = X.shape[1]
    wq = _shape(s, "W_Q", dm, None, "X's d_model")
    _shape(s, "W_K", dm, wq.shape[1], "X's d_model", "W_Q's d_k")
    _shape(s, "W_V", dm, None, "X's d_model")
    if s.Y is not None:
        _shape(s, "Y", None, dm, cols_of="X's d_model")
    _labels(s, "features", dm, "f")


def _validate_direct(s: Scenario) -> None:
    """Q, K (and V) given directly: their shapes agree."""
    if s.Q is None or s.K is None:
        raise ValueError("X: missing; a scenario needs X with W_Q/W_K/W_V, or Q and K")
    if s.Y is not None:
        raise ValueError("Y: only a scenario with X can take keys from a second sequence Y")
    Q = _shape(s, "Q")
    K = _shape(s, "K", None, Q.shape[1], cols_of="Q's d_k")
    if s.V is not None:
        _shape(s, "V", K.shape[0], None, "K (one value per key)")


def _validate_mask(s: Scenario) -> None:
    """The mask's kind, a window's width, the padded key positions."""
    if s.mask not in MASKS:
        raise ValueError(f"mask: unknown mask {s.mask!r}; use one of {', '.join(MASKS)}")
    if MASK_KINDS[s.mask].windowed and (not isinstance(s.window, int) or s.window < 1):
        raise ValueError(f"window: a sliding window needs a whole width >= 1, got {shown(s.window)}")
    if isinstance(s.window, (int, np.integer)) and s.window > MAX_T:  # T x T' masks count in int64
        raise ValueError(f"window: {shown(s.window)} is wider than any sequence (at most {MAX_T})")
    if len(s.padding) > s.T_k:  # 10**7 ones from a 117 KB file took 18 s per keypress
        raise ValueError(f"padding: {len(s.padding):,} entries for T' = {s.T_k} keys; each key position at most once")
    for p in s.padding:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 1 <= p <= s.T_k:
            raise ValueError(f"padding: key position {shown(p)} is outside 1..{s.T_k} (positions count from 1)")


def _validate_settings(s: Scenario) -> None:
    """fill, dtype, the row to open on, c and scaled (focus_row clamped, c made a float)."""
    if s.fill not in FILLS:
        raise ValueError(f'fill: unknown fill {s.fill!r}; use -1e9, "-inf" or "min"')
    if s.dtype not in DTYPES:
        raise ValueError(f"dtype: unknown dtype {s.dtype!r}; use {', '.join(DTYPES)}")
    if s.focus_row is not None:
        if isinstance(s.focus_row, bool) or not isinstance(s.focus_row, (int, np.integer)) or s.focus_row < 1:
            raise ValueError(
                f"focus_row: the row to open on must be a whole query position from 1, got {shown(s.focus_row)}"
            )
        object.__setattr__(s, "focus_row", min(int(s.focus_row), s.T))  # an edit that removes rows keeps it in range
    if not _positive_finite(s.c):
        raise ValueError(f"c: the scale multiplier must be a positive finite number, got {shown(s.c)}")
    object.__setattr__(s, "c", float(s.c))
    if not isinstance(s.scaled, bool):
        raise ValueError(f"scaled: must be true or false, got {s.scaled!r}")  # noqa: TRY004
