"""Issue 39, item 1: a sequence whose labels repeat shows each with its position, as the lesson
writes its tokens ("t4 it"); a label cut to fit keeps the position ("t118 tokeniz…")."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core import builtins
from attn_tui.core.heads.demo import DEFAULT_TOKENS
from attn_tui.core.labeltext import fit, positioned

WORDS = st.lists(st.sampled_from(["q", "w", "the", " the", "cat", "t1", "é"]), min_size=1, max_size=40)


def test_the_lessons_tokens_keep_their_labels():
    """Lesson 08 writes its tokens with positions already ("t2 was", "t5 was"): no label repeats."""
    tokens = builtins.lesson_pipeline().tokens
    assert tokens == ("t1 mat", "t2 was", "t3 soft", "t4 it", "t5 was")
    assert positioned(tokens) == tokens


def test_induction_demo_gets_a_position_on_every_label():
    raw = DEFAULT_TOKENS.split()
    shown = positioned(raw)
    assert len(set(raw)) < len(raw), "the demo repeats its tokens"
    assert len(set(shown)) == len(shown) == len(raw)
    assert shown[10] == f"t11 {raw[10]}" and raw[10] == raw[0] and shown[0] == f"t1 {raw[0]}"


@given(WORDS, st.sampled_from(["t", "k"]))
def test_positions_count_from_one_exactly_when_a_label_repeats(tokens, prefix):
    shown = positioned(tokens, prefix)
    repeats = len({t.strip() for t in tokens}) < len(tokens)  # " the" reads as "the"
    if repeats:
        assert shown == tuple(f"{prefix}{i + 1} {t.strip() or t}" for i, t in enumerate(tokens))
        assert len(set(shown)) == len(shown)
    else:
        assert shown == tuple(tokens)


@given(st.integers(1, 20000), st.text(min_size=1, max_size=30).filter(str.strip), st.integers(0, 40))
def test_a_cut_label_keeps_its_position(t, word, width):
    label = f"t{t} {word}"
    out = fit(label, width)
    assert len(out) <= width
    if len(label) <= width:
        assert out == label
        return
    pos = f"t{t}"
    if width >= len(pos):
        assert re.match(rf"t{t}(\s|$)", out), (label, width, out)  # the whole position, never t1 of t118
        assert label.startswith(out.removesuffix("…"))
    else:
        assert out in ("", "…")  # a cut position would name another token


def test_the_issues_example():
    assert fit("t118 tokenizer", 13) == "t118 tokeniz…"
    assert fit("verylongword", 5) == "very…"
