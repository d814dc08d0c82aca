"""How far `report --full` goes: every matrix up to FULL_MAX tokens, the memory that takes
(full_bytes), which reports are summaries unless --full is given (is_large) and the refusal
beyond FULL_MAX (check_full); the summary's hints say where --full helps."""

from __future__ import annotations

from ..core.limits import REPORT_JSON_MAX, REPORT_TEXT_MAX, gib
from ..core.scenario import Scenario

FULL_MAX = 2048  # --full prints every matrix up to this many tokens (~0.6 GiB of memory at 2048; JSON ~3.6 GiB)

# Peak memory of `report --full` per number it prints, measured (random float64 Q, K, V of T x 64,
# causal; Python 3.11): the JSON holds each number as a Python float (24 B) in tolist's list and
# clean's copy (16 B), the indenting encoder's string for it (~75 B) and that string's slot (8 B),
# and its ~20 characters in the joined text: 128 B a number under tracemalloc at T = 512, 144 B
# by /proc VmHWM at T = 2048 (3.0 GB, interpreter included). The text's lines: 29 B and 30 B.
JSON_BYTES_PER_NUMBER = 150
TEXT_BYTES_PER_NUMBER = 34


def full_numbers(s: Scenario, weighted: int = 0) -> int:
    """The numbers `report --full` prints of ``s``: five T x T' matrices (S, M, blocked, S + M, A) and
    ``weighted`` more (the JSON's value- and info-weighted A), Q and O (T rows), K and V (T' rows), the
    inputs when projected, and a few figures per row."""
    T, T_k = s.T, s.T_k
    n = (5 + weighted) * T * T_k + (T + T_k) * (s.d_k + s.d_v) + 3 * T
    if s.projected:
        n += (T + T_k) * s.d_model + s.d_model * (2 * s.d_k + s.d_v)
    return n


def full_bytes(s: Scenario, as_json: bool = False, info: bool = False) -> int:
    """About the peak memory of `report --full` (``as_json``: with --json, whose A_value_weighted is
    one more T x T' matrix, and A_info_weighted another when ``info``) for ``s`` (full_numbers)."""
    if not as_json:
        return TEXT_BYTES_PER_NUMBER * full_numbers(s)
    return JSON_BYTES_PER_NUMBER * full_numbers(s, 1 + info)


def full_hint(s: Scenario) -> str:
    """Where --full helps: it prints the matrices up to FULL_MAX tokens and refuses beyond."""
    n = max(s.T, s.T_k)
    return "--full prints them" if n <= FULL_MAX else f"--full prints them up to {FULL_MAX} tokens, not {n}"


def everything_hint(s: Scenario) -> str:
    """How to get every number instead of the text summary: --full, and the JSON for programs
    (complete up to REPORT_JSON_MAX tokens, with --full up to FULL_MAX, this summary beyond)."""
    n = max(s.T, s.T_k)
    if n > FULL_MAX:
        return f"{full_hint(s)}; --json gives these figures, for programs"
    json_flags = "--json" if n <= REPORT_JSON_MAX else "--full --json"
    return f"--full prints them; {json_flags} gives every number, for programs"


def is_large(s: Scenario, as_json: bool = False) -> bool:
    """True when the report summarises ``s`` unless --full is given: the text above REPORT_TEXT_MAX tokens
    (T or T'), the JSON (``as_json``, for programs) above REPORT_JSON_MAX."""
    return max(s.T, s.T_k) > (REPORT_JSON_MAX if as_json else REPORT_TEXT_MAX)


def check_full(s: Scenario, as_json: bool = False, info: bool = False) -> None:
    """Refuse --full beyond FULL_MAX tokens, naming the memory the full report would need (full_bytes:
    the full trace's matrices alone, 160 MiB at 2049 tokens, were ~5x below the text's peak and
    ~19x below the JSON's)."""
    n = max(s.T, s.T_k)
    if n > FULL_MAX:
        what = "--full --json" if as_json else "--full"
        raise ValueError(
            f"--full: {n} tokens; every matrix is printed up to {FULL_MAX} tokens ({what} here would need "
            f"about {gib(full_bytes(s, as_json, info))} of memory); leave out --full for the summary"
        )
