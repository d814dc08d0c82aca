"""A byte-level token's label and the token view's text (core/token_bytes.py): a character split over
tokens is never shown as �, each token's label says which bytes it holds (<C3>), labels of different
bytes differ, and the text joined reads as typed once the ◌ of each split character is left out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core.labeltext import shows_something, stored_problem
from attn_tui.core.limits import MAX_LABEL, clean_label
from attn_tui.core.token_bytes import PARTIAL, byte_label, byte_level_bytes, drawn_texts, split_utf8

TYPED = st.text(st.characters(categories=("L", "N", "P", "S"), exclude_characters="\ufffd"), min_size=1, max_size=40)


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    at = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(at, at[1:]) if b > a]


def test_a_split_character_is_labelled_by_its_bytes():
    assert [byte_label(p) for p in (b" l", b"\xc3", b"\xa4u", b"ft")] == [" l", "<C3>", "<A4>u", "ft"]
    assert byte_label("ä".encode()) == "ä" and byte_label(b" l\xc3") == " l<C3>"
    assert byte_label(b" ") == "␣" and byte_label(b"\n") == "↵" and byte_label(b"a\x01") == "a<01>"
    assert byte_label("\u0301".encode()) == "<CC><81>"  # a combining accent alone shows nothing: its bytes


def test_a_long_label_is_cut_between_marks():
    label = byte_label("東京".encode()[:-1] * 3)  # 15 bytes, 5 of no whole character here
    assert len(label) <= MAX_LABEL and label.endswith("…") and label[:-1].count("<") == label[:-1].count(">")


@given(TYPED, st.lists(st.integers(0, 200), max_size=8))
def test_the_text_reads_as_typed_and_each_label_as_its_bytes(text, cuts):
    pieces = splits(text.encode(), cuts)
    drawn = drawn_texts(pieces)
    assert len(drawn) == len(pieces)
    assert "".join(drawn).replace(PARTIAL, "") == text
    for piece, shown, label in zip(pieces, drawn, map(byte_label, pieces)):
        assert "\ufffd" not in label and "\ufffd" not in shown
        whole = [ch for ch, _ in split_utf8(piece) if ch is not None]
        if not label.endswith("…"):  # every loose byte named
            assert label.count("<") >= len(piece) - len("".join(whole).encode())
        assert stored_problem(label, MAX_LABEL) is None and shows_something(label)


SIGNS = ("<", "␣", "↵", "⇥", "␍", "…")  # typed, these read as a sign does: not the bytes they stand for


@given(st.binary(min_size=1, max_size=6), st.binary(min_size=1, max_size=6))
def test_tokens_of_different_bytes_get_different_labels(a, b):
    typed = (a + b).decode("utf-8", errors="ignore")
    if a != b and not any(s in typed for s in SIGNS) and max(len(byte_label(a)), len(byte_label(b))) < MAX_LABEL:
        assert byte_label(a) != byte_label(b)


def test_a_byte_level_token_stands_for_its_bytes():
    assert byte_level_bytes("Ġl") == b" l" and byte_level_bytes("Ã") == b"\xc3" and byte_level_bytes("Ċ") == b"\n"
    with pytest.raises(ValueError, match="stands for no byte"):
        byte_level_bytes("▁the")


@pytest.fixture(scope="module")
def text_demo():
    from attn_tui.core.models import MODELS

    return MODELS["text-demo"]


def test_the_shipped_tokenizers_tokens_are_the_bytes_its_decoder_reads(text_demo):
    tok = text_demo.model().tokenizer._tok
    for raw in tok.get_vocab(with_added_tokens=False):
        data = byte_level_bytes(raw)
        assert data.decode("utf-8", errors="replace") == tok.decoder.decode([raw])
        label = byte_label(data)
        assert stored_problem(label, MAX_LABEL) is None
        clean_label(label, "a token")  # the doors' own rule: no control or format character, shows something


SENTENCE = "Der Hund läuft schnell über die Straße. 東京は大きい。 I love pizza 🍕 and the café"


def test_text_demo_labels_a_split_character_truthfully(text_demo):
    enc = text_demo.encode(SENTENCE)
    assert not any("\ufffd" in lab for lab in enc.labels)
    assert "<C3>" in enc.labels and "<A4>" in enc.labels  # ä: C3 A4, two tokens here
    assert "".join(enc.drawn).replace(PARTIAL, "").replace("␣", " ") == SENTENCE


def test_a_prediction_of_a_byte_is_labelled_as_the_text_is(text_demo):
    from attn_tui.core.heads.prediction import TokenLabels

    tok = text_demo.model().tokenizer
    enc = text_demo.encode("ä")
    labels = TokenLabels(tok)
    assert [labels[int(i)] for i in enc.ids] == list(enc.labels) == ["<C3>", "<A4>"]
