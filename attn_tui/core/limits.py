"""The limits every door applies: a file (CLI, --scenario, in-app open), the cell editor
and the random form. Sizes are checked before anything of that size is allocated, and a
scenario is admitted only if its trace computes in its own dtype without overflow.

Every refusal is one line naming the key and, for matrices, the row and column
(1-based, like the lesson's t1..tT). Functions take ``error``, the exception class the
caller's door raises (ValueError, EditError, ...), so each door keeps its own type.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

import numpy as np

from . import labeltext
from .attention import DTYPES
from .mask_kinds import MASK_KINDS
from .matrices import INPUTS  # the matrices a scenario stores, from the one table

if TYPE_CHECKING:
    from typing import Any

    from attn_tui.core.attention import Trace
    from attn_tui.core.scenario import Scenario

# Each limit has one meaning and one name (issue 53 item 2); a module imports the one it means.
# Scenarios the app holds as text and dense matrices (all 512 today, each free to move alone):
EDIT_MAX = 512  # the editor's and the random form's T, T', d_model, d_k, d_v (what a person builds by hand)
TOML_MAX = 512  # sizes of a TOML scenario, read (the pre-scan's counts below) and written
DENSE_MAX = 512  # up to this T and T' a trace is dense (T x T' arrays); above, lazy / streamed in row blocks
EXPORT_MAX = 512  # T, T' whose matrices `export` writes (S, A, ... are T x T')
SESSION_MAX = 512  # T, T' of a scenario a kept session saves (as TOML)
REPORT_JSON_MAX = 512  # report's JSON holds every matrix up to this T, T' (a summary above, unless --full)
# `report` prints every matrix as text up to 64 tokens (T and T'), a summary above unless --full:
# at 64 tokens (d = 64) the full text is ~540 lines, ~320 KB, already more than a person reads,
# and it grows as T²: 10 MB at 512. The lesson's scenarios have 5 tokens, the induction demo 20.
REPORT_TEXT_MAX = 64
BOUND = 1e6  # |input cell| <= BOUND: scores cannot overflow float64 or float32 within these sizes
MAX_LABEL = 24  # longest token / feature label, so grids keep their columns
MAX_TITLE = 200  # longest title, one status line
MAX_FILE_BYTES = 64 * 2**20  # a scenario file: the largest the app can save (5 x 512 x 512 cells, ~31 MiB) fits
MAX_NESTING = 16  # brackets inside brackets in a file (a matrix needs 2)
# Before tomllib builds objects from a file (each bounds what it allocates):
MAX_LISTS = 8 * (TOML_MAX + 1) + 64  # [ and { outside strings: 8 matrices of 512 rows, label lists
MAX_TOKENS = 8 * MAX_LISTS  # brackets, strings and comments scanned
MAX_VALUES = 5 * TOML_MAX**2 + 2**16  # commas: 5 matrices of 512 x 512, labels
MAX_KEYS = 2**16  # '=' signs (19 keys, and '=' inside labels)
MAX_KEY_PARTS = 16  # parts of one dotted key (a.b.c): tomllib's memory grows with their square
MAX_KEY_DOTS = 4096  # dots of every dotted key of 3 parts or more in a file (a scenario has none)
C_MIN, C_MAX = 1e-3, 1e3  # the knob's range for the score multiplier c
# Array files (.npz, .safetensors): every door that reads one (--scenario, the in-app open, `report`,
# `heads`, the heads screen, the token and model views, capture before its forward) asks reader_problem:
MAX_T = 16384  # largest T, T' of an array file (the explorer's lazy State, report's summary, heads, capture)
MAX_WIDTH = 16384  # largest d_model, d_k, d_v of an array file (and any axis that is not tokens)
READER_BYTES = 2**31  # what one reader of an array file holds at once, in float64 (reader_bytes)
# ... and no more than the file's own bytes back: a reader holds at most READER_PER_STORED float64 bytes
# per byte the file has on disk (a float16 array read as float64 is 4, an int8 one 8), or READER_FLOOR
# whatever the file: a head of d_k = d_v = 64 at 16,384 tokens (issue 52: a sparse or compressed file
# under 1 MB asked readers for up to 2 GiB; the explorer holds a few heads: under 500 MB at the floor)
READER_PER_STORED = 8
READER_FLOOR = 24 * 2**20
MAX_ARRAY_FILE_BYTES = 128 * 2**20  # a single-head array file, read whole: Q, K, V of 16384 x 256 in float64 are 96 MiB
TRACE_MATRICES = 5  # T x T' matrices a full trace holds: S, M, S + M, A, blocked (counted at 8 bytes)


def printable(text: object) -> str:
    """``text`` with every control character (ESC, BEL, newline, C1, DEL) written as \\xNN / \\uNNNN,
    so that it can go to a terminal or into a one-line message; so are the lone surrogates that
    stand for a file name's bytes that are not UTF-8 (a strict UTF-8 stdout cannot write them)."""
    text = str(text)
    if not any(unicodedata.category(ch) in _ESCAPED for ch in text):
        return text
    return "".join(
        ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in _ESCAPED else ch for ch in text
    )


_ESCAPED = ("Cc", "Cs")  # control characters; lone surrogates (a file name's undecodable bytes)


def shown(value: Any, width: int = 40) -> str:
    """repr(value) on one line and at most ``width`` characters (a 400-digit integer stays short)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        try:
            return f"an integer of {len(str(abs(value)))} digits"
        except ValueError:  # beyond Python's 4300-digit str() limit
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = printable(repr(value))
    return text if len(text) <= width else text[: width - 3] + "..."


def cut_words(text: str, width: int = 80) -> str:
    """``text`` in at most ``width`` characters, cut at a space (never mid-word), "..." when cut."""
    if len(text) <= width:
        return text
    head = text[: width - 3]
    space = head.rfind(" ")
    return (head[:space] if space > width // 2 else head).rstrip(" ,;:(") + "..."


def unexpected(exc: BaseException, width: int = 80) -> str:
    """An exception no check foresaw, for a one-line refusal: "MemoryError: Unable to allocate ..."."""
    why = cut_words(printable(exc), width)
    return f"{type(exc).__name__}: {why}" if why else type(exc).__name__


def check_dim(what: str, n: int, error: type[Exception] = ValueError, unit: str = "") -> None:
    """Refuse a size of a TOML scenario above TOML_MAX before anything of that size is built."""
    if n > TOML_MAX:
        raise error(f"{what}: {n}{unit}; sizes (T, T', d_model, d_k, d_v) are at most {TOML_MAX}")


def gib(nbytes: float) -> str:
    """A byte count in the unit a person reads: 74.5 GiB, 32 MiB."""
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.0f} MiB"


def trace_bytes(T: int, T_k: int) -> int:
    """Bytes of the T x T' matrices of a full float64 trace (S, M, S + M, A, blocked)."""
    return TRACE_MATRICES * 8 * T * T_k


def check_tokens(T: int, T_k: int, large: bool = False, error: type[Exception] = ValueError, source: str = "T") -> None:
    """Refuse T or T' above the limit of the door (``large``: an array file's, MAX_T, whose matrices
    are lazy or streamed; else a TOML scenario's, TOML_MAX), naming the limit and the memory the
    full trace would need."""
    limit = MAX_T if large else TOML_MAX
    what, n = ("T", T) if T >= T_k else ("T'", T_k)
    if n <= limit:
        return
    need = f"its T x T' matrices would need {gib(trace_bytes(T, T_k))} ({TRACE_MATRICES} of {T} x {T_k} in float64)"
    if large:
        raise error(f"{source}: {what} = {n} tokens; at most {MAX_T}: {need}")
    raise error(
        f"{source}: {what} = {n} tokens; at most {TOML_MAX} here "
        f"(`attn-tui --scenario FILE` and `attn-tui report --scenario FILE` take up to {MAX_T}); {need}"
    )


def clean_label(
    text: str, where: str, error: type[Exception] = ValueError, limit: int = MAX_LABEL, kind: str = "label"
) -> str:
    """A label or title as stored: whitespace runs (newline, tab) become one space; refuses other
    control characters (ESC, BEL, ...), format characters (bidi overrides, zero-width spaces:
    core.labeltext), a label that shows nothing (empty, or only marks and joiners) and one
    longer than ``limit``."""
    lab = " ".join(str(text).split())
    bad = next((ch for ch in lab if unicodedata.category(ch) == "Cc"), None)
    if bad is not None:
        raise error(f"{where}: contains the control character {printable(bad)}; {kind}s are plain text")
    bad = next((ch for ch in lab if unicodedata.category(ch) == "Cs"), None)  # no terminal or UTF-8 file holds one
    if bad is not None:
        raise error(f"{where}: contains a lone surrogate {labeltext.describe(bad)}; {kind}s are plain text")
    bad = labeltext.bad_format_char(lab)
    if bad is not None:
        raise error(f"{where}: contains the format character {labeltext.describe(bad)}; {kind}s are plain text")
    if not lab:
        raise error(f"{where}: a {kind} cannot be empty")
    if len(lab) > limit:
        raise error(f"{where}: {len(lab)} characters; {kind}s are at most {limit}")
    if not labeltext.shows_something(lab):
        raise error(f"{where}: has no visible character (only marks, joiners or blank letters); {kind}s show text")
    return lab


def check_c(c: float, error: type[Exception] = ValueError) -> None:
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not C_MIN <= c <= C_MAX:
        raise error(
            f"c: the scale multiplier must be a number from {C_MIN:g} to {C_MAX:g} (the knob's range), got {shown(c)}"
        )


def check_values(name: str, a: np.ndarray, error: type[Exception] = ValueError) -> None:
    """Refuse the first cell of input matrix ``name`` with |x| > BOUND, naming its row and column."""
    a = np.asarray(a, dtype=np.float64)
    if a.size and np.abs(a).max() <= BOUND:  # NaN fails this too; the usual case scans once
        return
    bad = np.argwhere(~(np.abs(a) <= BOUND))
    if len(bad):
        r, c = (int(v) for v in bad[0])
        raise error(f"{name}: row {r + 1}, column {c + 1} is {a[r, c]:g}; entries must satisfy |x| <= {BOUND:g}")


# -- does it compute? ---------------------------------------------------------------
def _inputs(s: Scenario, comp: str, r: int, c: int) -> str:
    """The input cells that computed matrix ``comp``[r, c] (0-based) is made from, 1-based."""
    src = "Y" if s.cross else "X"
    if comp == "S":
        if s.projected:
            return f"X row {r + 1} (through W_Q) and {src} row {c + 1} (through W_K)"
        return f"Q row {r + 1} and K row {c + 1}"
    if comp == "O":
        return f"the values: {'W_V' if s.projected else 'V'} column {c + 1}"
    if not s.projected:
        return f"{comp} row {r + 1}, column {c + 1}"
    row_of = "X" if comp == "Q" else src
    return f"{row_of} row {r + 1} and W_{comp} column {c + 1}"


def compute_problem(s: Scenario, trace: Trace | None = None) -> Any:
    """None if the trace of ``s`` computes in its dtype; else (computed, inputs, dtype, largest):
    the first matrix (Q, K, V, S, O) with ±inf/NaN where the inputs were finite, and the input
    cells it came from. A NaN row of A from a fully masked row is not a problem (the lesson's
    point); neither is a -1e9 fill that overflows in float16 (it lives in M). ``trace``: s.run()
    when the caller has it already (the explorer computes it for its panes anyway)."""
    if max(s.T, s.T_k) > DENSE_MAX:
        return _streamed_problem(s)  # no T x T' matrix (core.stream)
    with np.errstate(all="ignore"):  # no RuntimeWarning line: the overflow is reported here
        tr = s.run() if trace is None else trace
    top = float(np.finfo(DTYPES[s.dtype]).max)
    for name in ("Q", "K", "V", "S", "O"):
        a = getattr(tr, name)
        bad = np.argwhere(np.isinf(a) if name == "O" else ~np.isfinite(a))
        if len(bad):
            r, c = (int(v) for v in bad[0])
            return name, _inputs(s, name, r, c), s.dtype, top
    return None


def overflow_message(problem: Any) -> str:
    comp, inputs, dtype, top = problem
    return f"{inputs}: {comp} overflows {dtype} (largest finite {top:g}); use smaller values"


# -- the whole door --------------------------------------------------------------------
def check_sizes(s: Scenario, error: type[Exception] = ValueError, large: bool = False) -> None:
    """T, T' and the widths within the door's limits: TOML_MAX everywhere for a TOML door; for
    ``large`` (an array file's door) the one rule of every array-file door, reader_problem."""
    if large:
        from .reader_sizes import reader_problem  # reader_sizes reads the limits above

        d_v = s.d_v if s.projected or s.V is not None else 0
        problem = reader_problem(s.T, s.T_k, s.d_k, d_v, s.d_model or 0, cross=s.cross)
        if problem:
            raise error(problem)
        return
    check_tokens(s.T, s.T_k, large, error)
    widths = {"d_k": s.d_k, "d_v": s.d_v if s.projected or s.V is not None else 0, "d_model": s.d_model or 0}
    for what, n in widths.items():
        if n > TOML_MAX:
            raise error(f"{what}: {n}; with {max(s.T, s.T_k)} tokens d_model, d_k, d_v are at most {TOML_MAX}")


def _clean_labels(s: Scenario, error: type[Exception]) -> dict[Any, Any]:
    """The labels and title of ``s`` as stored (clean_label), as changes to make; {} when clean."""
    changes: dict[str, Any] = {}
    title = clean_label(s.title, "title", error, MAX_TITLE, "title")
    if title != s.title:
        changes["title"] = title
    for key in ("tokens", "features", "key_tokens"):
        labels = getattr(s, key)
        clean = tuple(clean_label(x, f"{key}: label {i}", error) for i, x in enumerate(labels, 1))
        if clean != labels:
            changes[key] = clean
    return changes


# A Scenario is *valid* when it is well formed, whatever its size: shapes agree, names are known, c is a
# positive finite number, a window a whole width >= 1 (core/scenario.py:validate, run by every Scenario).
# It is *admissible* when a door may accept it: the limits below (sizes, |x| <= BOUND, c within the knob's
# range, the window within the door's token count), its labels clean, and its trace computes in its dtype.
# Labels are cleaned once, where they enter: a file's door (admit), the editor (core/edit.py uses
# clean_label); a change inside the explorer (refusal) keeps the labels it was given, so checks none.
def _within_limits(s: Scenario, error: type[Exception], large: bool) -> None:
    """Sizes, input values (|x| <= BOUND), c within the knob's range, the window within the door's T."""
    check_sizes(s, error, large)
    for name in INPUTS:
        if getattr(s, name) is not None:
            check_values(name, getattr(s, name), error)
    check_c(s.c, error)
    widest = window_limit(s.T, s.T_k, large)
    if not MASK_KINDS[s.mask].windowed:
        return
    assert s.window is not None  # a windowed kind holds its width, >= 1 (scenario.validate)
    if s.window > widest:
        raise error(f"window: a width from 1 to {widest}, got {shown(s.window)}")


def window_limit(T: int, T_k: int, large: bool = True) -> int:
    """The widest window a door takes: MAX_T for an array file of more than DENSE_MAX tokens, else DENSE_MAX."""
    return MAX_T if large and max(T, T_k) > DENSE_MAX else DENSE_MAX


def _computes(s: Scenario, error: type[Exception], trace: Trace | None = None) -> None:
    problem = compute_problem(s, trace)
    if problem:
        raise error(overflow_message(problem))


def admit(s: Scenario, error: type[Exception] = ValueError, large: bool = False, trace: Trace | None = None) -> Any:
    """``s`` if every door may accept it (labels with whitespace runs collapsed), else ``error``
    with one line: sizes, input values (|x| <= BOUND), c, window, labels, then the trace computes.
    ``large``: the report's door, T up to MAX_T, the trace checked in row blocks (core.stream)."""
    _within_limits(s, error, large)
    changes = _clean_labels(s, error)
    if changes:
        s = s.with_(**changes)
    _computes(s, error, trace if not changes else None)
    return s


def refusal(s: Scenario, trace: Trace | None = None) -> str | None:
    """The one line the explorer's file door (admit, T up to MAX_T) would refuse ``s`` with, else
    None. Every change of the explorer's scenario (an edit, dtype, fill, c, mask, padding, tokens,
    dimensions, a random one) passes it, so what the explorer shows and saves, a file door opens;
    its labels entered clean (a door, the editor), so they are not cleaned again on every key."""
    try:
        _within_limits(s, ValueError, True)
        _computes(s, ValueError, trace)
    except ValueError as exc:
        return printable(str(exc).splitlines()[0])
    return None


def _streamed_problem(s: Scenario) -> Any:
    """compute_problem for T above DENSE_MAX, without a T x T' matrix: Q, K, V, then S in row
    blocks (core.stream; O = A V cannot overflow)."""
    from .stream import first_overflow  # stream imports attention; limits is imported by scenario

    return first_overflow(s, _inputs)
