"""The house's rule about mask kinds, read from the files (tests/test_house.py keeps the others): no
module but the table's own (core/mask_kinds.py) compares a kind's name or written form, so a new kind
is one row of MASK_KINDS. And the table's two descriptions of each rule kind agree."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from attn_tui.core.mask_kinds import MASK_KINDS, parse, written
from attn_tui.core.numparse import MAX_NUMBER_CHARS, whole_digits

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attn_tui"
TABLE = PACKAGE / "core" / "mask_kinds.py"
# The names, and the written forms' prefixes ("window:"): what a comparison must not spell out.
SPELLED = frozenset(MASK_KINDS) | {written(n, "") for n, k in MASK_KINDS.items() if k.windowed}


def _strings(node: ast.AST) -> list[str]:
    """The string constants of an expression (a tuple or set of them as well)."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def kind_compares(source: str) -> list[tuple[int, str]]:
    """(line, text) of each comparison of a mask kind's name in ``source``: ==, !=, in, not in
    (a tuple or set of names too), str.startswith / endswith, and a match case."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            sides = node.args if node.func.attr in ("startswith", "endswith") else []
        elif isinstance(node, ast.match_case):
            sides = [node.pattern]
        else:
            continue
        line = node.pattern.lineno if isinstance(node, ast.match_case) else node.lineno
        found += [(line, s) for side in sides for s in _strings(side) if s in SPELLED]
    return found


def test_the_scan_finds_what_it_looks_for():
    """Each form of comparison is found, and a name passed as a value is not (else the rule below passes
    on nothing)."""
    for text in (
        's.mask == "causal"',
        'kind != "none"',
        'kind in ("causal", "window")',
        'set(masks) == {"causal"}',
        'text.startswith("window:")',
        'match kind:\n    case "additive":\n        pass',
    ):
        assert kind_compares(text), text
    assert not kind_compares('s.with_(mask="none")')
    assert not kind_compares('x == "causality"')


def test_only_the_table_compares_mask_kinds():
    """Code asks MASK_KINDS (causal, future, windowed, stored, ...) rather than comparing a kind's name."""
    files = sorted(p for p in PACKAGE.rglob("*.py") if p != TABLE)
    assert len(files) > 100
    found = [f"{p.relative_to(ROOT)}:{line}: {s!r}" for p in files for line, s in kind_compares(p.read_text())]
    assert not found, "a mask kind compared outside core/mask_kinds.py:\n" + "\n".join(found)


@pytest.mark.parametrize("name", [n for n, k in MASK_KINDS.items() if k.rule is not None])
def test_each_rule_kind_s_span_is_its_rule(name):
    """A query's seen keys by ``span`` (the streaming core's) are exactly those ``rule`` leaves open
    (the dense core's), for self- and cross-attention shapes and every width."""
    kind = MASK_KINDS[name]
    for T, T_k in ((1, 1), (5, 5), (6, 3), (3, 7)):
        for w in range(1, 8) if kind.windowed else (None,):
            t = np.arange(T)
            first, last = kind.span(t, T_k, w)
            i = np.arange(T_k)[None, :]
            from_span = (i < first[:, None]) | (i > last[:, None])
            np.testing.assert_array_equal(kind.rule(t[:, None], i, w), from_span, err_msg=f"{name} {T}x{T_k} w={w}")


def test_the_flags_say_what_the_rule_does():
    """future: every key after the query hidden; causal: exactly those; hides: some key hidden somewhere."""
    T = 6
    t, i = np.arange(T)[:, None], np.arange(T)[None, :]
    for name, kind in MASK_KINDS.items():
        if kind.rule is None:
            assert kind.stored and not kind.scenario, name
            continue
        for w in (1, 2, 5) if kind.windowed else (None,):
            blocked = kind.rule(t, i, w)
            assert kind.future == bool(blocked[i > t].all()), name
            assert kind.causal == np.array_equal(blocked, i > t), name
            assert kind.hides == bool(blocked.any()) or (kind.windowed and w >= T), name


def test_written_forms_read_back():
    """parse(written(kind, W)) is (kind, W); a text naming no kind, or a width that is no whole number
    >= 1 of numparse's digits, reads as None."""
    for name, kind in MASK_KINDS.items():
        w = 3 if kind.windowed else None
        assert parse(written(name, w)) == (name, w)
        assert parse(name + ":3" if not kind.windowed else name) is None
    window = next(n for n, k in MASK_KINDS.items() if k.windowed)
    for width in ("", "0", "-1", "1.5", "١", "9" * (MAX_NUMBER_CHARS + 1)):
        assert parse(f"{window}:{width}") is None, width
        assert not whole_digits(width) or int(width) < 1  # the table's digits are numparse's
    assert parse(f"{window}:{'9' * MAX_NUMBER_CHARS}") == (window, int("9" * MAX_NUMBER_CHARS))
    assert parse(None) is None and parse("Causal") is None
