"""The one number parser (core.numparse): ASCII only, bounded length, one line naming the field."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core.edit import EditError, parse_value
from attn_tui.core.numparse import MAX_NUMBER_CHARS, parse_float, parse_int
from attn_tui.core.random_scenario import check_params

HOSTILE_INTS = [
    "²",
    "٣²",
    "5\x1c",
    pytest.param("9" * 5000, id="5000-digits"),
    "١",
    "１２",
    "1_000",
    "\u20003",
    "٣",
    "1.0",
    "0x10",
    "",
    "  ",
]


@pytest.mark.parametrize("text", HOSTILE_INTS)
def test_parse_int_refuses_what_int_or_isdigit_let_through(text):
    with pytest.raises(ValueError) as err:
        parse_int(text, "d_k", 1, 512)
    msg = str(err.value)
    assert msg.startswith("d_k: ") and "\n" not in msg and len(msg) < 120, msg


@pytest.mark.parametrize("text,value", [("12", 12), (" 7 ", 7), ("+3", 3), ("0512", 512), ("\t1\n", 1)])
def test_parse_int_accepts_ascii_digits(text, value):
    assert parse_int(text, "d_k", 0, 512) == value


def test_parse_int_names_the_field_the_text_and_the_range():
    assert str(pytest.raises(ValueError, parse_int, "١", "row t", 1, 5).value) == (
        "row t: '١' is not a whole number (digits 0-9 only); type one from 1 to 5"
    )
    assert str(pytest.raises(ValueError, parse_int, "9" * 5000, "T", 1, 512).value) == (
        "T: a number of 5000 characters is too long; type a whole number from 1 to 512"
    )
    assert str(pytest.raises(ValueError, parse_int, "6", "w", 1, 5).value) == "w: 6 must be a whole number from 1 to 5"


@pytest.mark.parametrize("text", ["١", "１２", "1_000", "\u20003", "٣.5", "1e٣", "0\x1f", "1" * (MAX_NUMBER_CHARS + 1)])
def test_parse_float_refuses_non_ascii_and_long_text(text):
    with pytest.raises(EditError, match=r"^X row 1, column 2: "):
        parse_value(text, "X row 1, column 2")


@pytest.mark.parametrize("text,value", [("2", 2.0), (".5", 0.5), ("5.", 5.0), ("-1e-3", -1e-3), ("+3", 3.0)])
def test_parse_float_accepts_ascii_float_syntax(text, value):
    assert parse_float(text, "lr") == value


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_parse_int_never_returns_for_text_with_a_non_ascii_character(text):
    try:
        v = parse_int(text, "n", -(10**30), 10**30)
    except ValueError as exc:
        assert str(exc).startswith("n: ") and "\n" not in str(exc)
    else:
        assert text.isascii() and v == int(text)


def test_the_random_form_refuses_non_ascii_digits():
    with pytest.raises(EditError, match="T: '١２' is not a whole number"):
        check_params(T="١２")


def test_train_options_refuse_non_ascii_digits_in_one_line():
    from attn_tui import cli

    assert cli.main(["train", "--steps", "١٠"]) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["heads", "induction-demo", "--layer", "١"],
        ["report", "--scenario", "induction-demo", "--layer", "１", "--head", "0"],
        ["report", "--scenario", "induction-demo", "--layer", "0", "--head", "٠"],
    ],
)
def test_layer_and_head_options_refuse_non_ascii_digits(argv, capsys):
    """type=int read '١' as layer 1 and printed that layer's heads (exit 0)."""
    from attn_tui import cli

    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "digits 0-9 only" in err and len(err.strip().splitlines()) == 1


def test_without_a_range_the_message_asks_for_digits():
    assert str(pytest.raises(ValueError, parse_int, "１２", "steps").value) == (
        "steps: '１２' is not a whole number (digits 0-9 only)"
    )
    assert parse_int("-7", "seed") == -7


def test_parse_float_refuses_a_number_float64_would_read_as_zero():
    """1e-400 is not 0: read silently as 0 it would be a number the learner did not type."""
    assert str(pytest.raises(ValueError, parse_float, "-1e-400", "X row 1, column 2").value) == (
        "X row 1, column 2: '-1e-400': float64 would read it as 0 (its smallest number is 4.9e-324); type 0 for zero"
    )
    assert parse_float("0e-400", "lr") == 0.0 and parse_float("0.000e-999", "lr") == 0.0  # zero, written small
    assert parse_float("1e-320", "lr") == float("1e-320") > 0  # a subnormal: float64 has it
