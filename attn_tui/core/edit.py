"""Pure edits of a Scenario: one cell, one label, one token, one dimension.

Every function takes a Scenario and returns a new one (Scenarios are frozen), or
raises EditError whose str() is a one-line message naming the matrix, row and
column (1-based, like the lesson's t1..tT) and what is wrong. Nothing here knows
about the UI.

Shapes: X (T, d_model), W_Q/W_K (d_model, d_k), W_V (d_model, d_v), Y (T', d_model);
or Q (T, d_k), K (T', d_k), V (T', d_v).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from .limits import BOUND as BOUND  # re-exported (MAX_LABEL: the editor's, as BOUND)
from .limits import EDIT_MAX, clean_label, compute_problem
from .limits import MAX_LABEL as MAX_LABEL
from .matrices import INPUTS  # the matrices the learner edits (when the scenario has them)
from .numparse import parse_float
from .scenario import Scenario

if TYPE_CHECKING:
    from typing import Any

# BOUND (|cell| <= 1e6), EDIT_MAX (512) and MAX_LABEL (24) live in core.limits: every door applies them


class EditError(ValueError):
    """An edit that cannot be made; str() is the one-line message for the learner."""


def cell_name(name: str, row: Any, col: Any) -> str:
    """'X[t2, noun]'-style position, 1-based: ``X row 2, column 3``."""
    return f"{name} row {row + 1}, column {col + 1}"


def parse_value(text: str, where: str = "value") -> float:
    """The float a learner typed, or EditError: ASCII float syntax (``2``, ``-0.5``, ``1e-3``,
    `` 3 ``) through :func:`core.numparse.parse_float`, finite and |x| <= BOUND.

    Refuses empty text, ``abc``, ``1e``, ``--1``, ``nan``, ``inf``, ``1e400``, ``1_000``, the
    separators ``\x1c``-``\x1f`` (str.strip() drops them) and non-ASCII digits (``١``, ``１２``).
    """
    x = parse_float(text, where, EditError)
    if abs(x) > BOUND:
        raise EditError(f"{where}: {str(text).strip()} is too large; entries must satisfy |x| <= {BOUND:g}")
    return x


def overflow(s: Scenario) -> str | None:
    """A message if Q, K, V, S or O of ``s`` overflow in its dtype, else None."""
    problem = compute_problem(s)  # the check a file must pass too (core.limits)
    return problem and f"{problem[0]} overflows {s.dtype} (largest finite {problem[3]:g})"


def matrix_of(s: Scenario, name: str) -> Any:
    """The current values of editable matrix ``name`` (an implicit V is the identity)."""
    m = getattr(s, name, None) if name in INPUTS else None
    if name == "V" and m is None and not s.projected:
        m = np.eye(s.T_k)  # the implicit identity V (O = A) becomes explicit when edited
    if m is None:
        raise EditError(f"{name}: this scenario has no editable matrix {name}")
    return m


def set_cell(s: Scenario, name: str, row: int, col: int, value: Any) -> Scenario:
    """``s`` with ``name[row, col] = value`` (0-based indices; value a float or text).

    Refuses bad text (see parse_value), out-of-range cells, and a value that makes
    Q, K, V or the scores S overflow in the scenario's dtype.
    """
    m = matrix_of(s, name)
    where = cell_name(name, row, col)
    if not (0 <= row < m.shape[0] and 0 <= col < m.shape[1]):
        raise EditError(f"{where}: outside {name}'s {m.shape[0]}x{m.shape[1]} cells")
    x = parse_value(value, where) if isinstance(value, str) else parse_value(repr(float(value)), where)
    if x == m[row, col] and np.signbit(x) == np.signbit(m[row, col]):
        return s  # unchanged: the same scenario, so no undo step
    a = m.copy()
    a[row, col] = x
    new = s.with_(**{name: a})
    why = overflow(new)
    if why and not overflow(s):
        raise EditError(f"{where}: with {x:g}, {why}; the old value stays")
    return new


# -- labels ---------------------------------------------------------------
def _label(text: str, where: Any) -> Any:
    return clean_label(text, where, EditError)  # the rule a file's labels follow too (core.limits)


LABEL_KINDS = {"tokens": "token", "features": "feature", "key_tokens": "key token"}


def rename(s: Scenario, kind: str, index: int, text: str) -> Scenario:
    """Rename label ``index`` (0-based) of ``kind``: "tokens", "features" or "key_tokens"."""
    if kind not in LABEL_KINDS:
        raise EditError(f"{kind}: unknown label kind; use tokens, features or key_tokens")
    if kind == "key_tokens" and s.projected and not s.cross:
        kind = "tokens"  # self-attention: the keys are the tokens themselves
    labels = list(s.keys if kind == "key_tokens" else getattr(s, kind))
    where = f"{LABEL_KINDS[kind]} {index + 1}"
    if not labels:
        raise EditError(f"{kind}: this scenario has no {LABEL_KINDS[kind]} labels")
    if not 0 <= index < len(labels):
        raise EditError(f"{where}: outside 1..{len(labels)}")
    labels[index] = _label(text, where)
    return s.with_(**{kind: tuple(labels)})


# -- tokens ---------------------------------------------------------------
def _fresh(labels: Any, prefix: str) -> str:
    n = len(labels) + 1
    while f"{prefix}{n}" in labels:
        n += 1
    return f"{prefix}{n}"


def renumber(labels: Any, prefix: str = "t") -> Any:
    """Position-style labels ("t3", "t3 soft") renumbered by position; other labels kept.

    ``("t1", "t2", "t5", "t3")`` -> ``("t1", "t2", "t3", "t4")``;
    ``("t1 mat", "t5", "cat")`` -> ``("t1 mat", "t2", "cat")``.
    """
    pat = re.compile(rf"^{re.escape(prefix)}\d+(\s.*)?$")
    return tuple(f"{prefix}{i + 1}{m.group(1) or ''}" if (m := pat.match(x)) else x for i, x in enumerate(labels))


def _insert_row(a: np.ndarray | None, at: Any) -> Any:
    return None if a is None else np.insert(a, at, 0.0, axis=0)


def _delete_row(a: np.ndarray | None, at: Any) -> Any:
    return None if a is None else np.delete(a, at, axis=0)


def _self_qk(s: Scenario) -> Any:
    """Q/K scenario whose keys are the query tokens themselves (T = T')."""
    return not s.projected and s.T == s.T_k


def add_token(s: Scenario, at: int | None = None, label: str | None = None) -> Scenario:
    """A new query token at position ``at`` (default: last) with zero features.

    Self-attention: X gains a zero row (Q/K scenarios: Q, K and V gain zero rows;
    an implicit identity V grows by itself). Cross-attention: only X grows (use
    add_key_token for Y). Padding positions after ``at`` move along.
    """
    T = s.T
    at = T if at is None else at
    if not 0 <= at <= T:
        raise EditError(f"token {at + 1}: outside 1..{T + 1}")
    if T >= EDIT_MAX:  # an array file may hold more (limits.MAX_T); the editor adds none beyond EDIT_MAX
        more = f" are added here; this scenario has {T}, from an array file" if T > EDIT_MAX else ""
        raise EditError(f"tokens: at most {EDIT_MAX} tokens{more}")
    tokens = list(s.tokens)
    tokens.insert(at, _label(label, f"token {at + 1}") if label else f"t{at + 1}")
    tokens = list(renumber(tokens))  # "t5 was" after the new t4 becomes "t6 was"
    ch = {"tokens": tuple(tokens)}
    if s.projected:
        ch["X"] = _insert_row(s.X, at)
        keys_move = not s.cross
    else:
        ch["Q"] = _insert_row(s.Q, at)
        keys_move = _self_qk(s)
        if keys_move:
            ch["K"], ch["V"] = _insert_row(s.K, at), _insert_row(s.V, at)
            if s.key_tokens:
                ch["key_tokens"] = renumber(s.key_tokens[:at] + (tokens[at],) + s.key_tokens[at:])
    if keys_move:
        ch["padding"] = tuple(p + 1 if p > at else p for p in s.padding)
    return s.with_(**ch)


def remove_token(s: Scenario, at: int) -> Scenario:
    """Remove query token ``at`` (0-based); keys go too in self-attention. Needs T >= 2."""
    T = s.T
    if not 0 <= at < T:
        raise EditError(f"token {at + 1}: outside 1..{T}")
    if T <= 1:
        raise EditError("tokens: cannot remove the last token; a sequence needs at least one")
    tokens = list(s.tokens)
    del tokens[at]
    ch = {"tokens": renumber(tokens)}
    if s.projected:
        ch["X"] = _delete_row(s.X, at)
        keys_move = not s.cross
    else:
        ch["Q"] = _delete_row(s.Q, at)
        keys_move = _self_qk(s)
        if keys_move:
            ch["K"], ch["V"] = _delete_row(s.K, at), _delete_row(s.V, at)
            if s.key_tokens:
                ch["key_tokens"] = renumber(s.key_tokens[:at] + s.key_tokens[at + 1 :])
    if keys_move:
        ch["padding"] = _shift_padding(s.padding, at)
    return s.with_(**ch)


def _shift_padding(padding: Any, at: Any) -> Any:
    """Padding positions (1-based) after removing 0-based key ``at``."""
    return tuple(p - 1 if p > at + 1 else p for p in padding if p != at + 1)


def add_key_token(s: Scenario, label: str | None = None) -> Scenario:
    """Cross-attention: a new last key token (a zero row of Y)."""
    if not s.cross:
        raise EditError("Y: key tokens are added to Y, and only in cross-attention")
    if s.T_k >= EDIT_MAX:
        more = f" are added here; this scenario has {s.T_k}, from an array file" if s.T_k > EDIT_MAX else ""
        raise EditError(f"key tokens: at most {EDIT_MAX}{more}")
    keys = list(s.keys)
    keys.append(_label(label, f"key token {len(keys) + 1}") if label else _fresh(keys, "y"))
    return s.with_(Y=_insert_row(s.Y, s.T_k), key_tokens=tuple(keys))


def remove_key_token(s: Scenario, at: int) -> Scenario:
    """Cross-attention: remove key token ``at`` (a row of Y). Needs T' >= 2."""
    if not s.cross:
        raise EditError("Y: key tokens are removed from Y, and only in cross-attention")
    if not 0 <= at < s.T_k:
        raise EditError(f"key token {at + 1}: outside 1..{s.T_k}")
    if s.T_k <= 1:
        raise EditError("key tokens: cannot remove the last key; Y needs at least one row")
    keys = list(s.keys)
    del keys[at]
    return s.with_(Y=_delete_row(s.Y, at), key_tokens=renumber(keys, "y"), padding=_shift_padding(s.padding, at))


# -- dimensions -----------------------------------------------------------
def _resize(a: np.ndarray | None, rows: Any | None = None, cols: Any | None = None) -> Any:
    """``a`` cut or zero-padded to (rows, cols); None keeps that size."""
    if a is None:
        return None
    r = a.shape[0] if rows is None else rows
    c = a.shape[1] if cols is None else cols
    out = np.zeros((r, c))
    rr, cc = min(r, a.shape[0]), min(c, a.shape[1])
    out[:rr, :cc] = a[:rr, :cc]
    return out


DIMS = ("d_model", "d_k", "d_v")


def set_dim(s: Scenario, dim: str, n: int) -> Scenario:
    """``s`` with d_model, d_k or d_v set to ``n``: matrices are cut, or grow with zeros.

    d_model: columns of X and Y, rows of W_Q, W_K, W_V (and feature labels).
    d_k: columns of W_Q and W_K (or of Q and K). d_v: columns of W_V (or of V; an
    implicit identity V is made explicit first).
    """
    if dim not in DIMS:
        raise EditError(f"{dim}: unknown dimension; use d_model, d_k or d_v")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= EDIT_MAX:
        raise EditError(f"{dim}: {n!r} must be a whole number from 1 to {EDIT_MAX}")
    n = int(n)
    if dim == "d_model":
        if not s.projected:
            raise EditError("d_model: this scenario gives Q, K, V directly; it has no X")
        feats = list(s.features[:n])
        while len(feats) < n:
            feats.append(_fresh(feats, "f"))
        return s.with_(
            X=_resize(s.X, cols=n),
            Y=_resize(s.Y, cols=n),
            features=tuple(feats),
            W_Q=_resize(s.W_Q, rows=n),
            W_K=_resize(s.W_K, rows=n),
            W_V=_resize(s.W_V, rows=n),
        )
    if dim == "d_k":
        if s.projected:
            return s.with_(W_Q=_resize(s.W_Q, cols=n), W_K=_resize(s.W_K, cols=n))
        return s.with_(Q=_resize(s.Q, cols=n), K=_resize(s.K, cols=n))
    if s.projected:
        return s.with_(W_V=_resize(s.W_V, cols=n))
    V = s.V if s.V is not None else np.eye(s.T_k)
    return s.with_(V=_resize(V, cols=n))
