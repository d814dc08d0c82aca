"""The explorer opens on the row the lesson reads (t4: "it" retrieves "mat", A(4,1) = 0.870);
a scenario file's focus_row says which row, and the in-app save remembers the selected row."""

import pytest

from attn_tui.core import builtin
from attn_tui.core.scenario_io import dumps, load, loads
from attn_tui.tui.app import AttentionApp


async def test_launched_fresh_the_explorer_shows_row_t4(settle, grid_cell):
    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.state.row == 3
        assert "row t4 it" in app.screen.query_one("#status").plain
        assert "softmax row t4" in app.screen.query_one("#chart").border_title
        assert grid_cell(app, "A", 3, 0) == "0.870"


@pytest.mark.parametrize("name, row", [("lesson-pipeline", 4), ("lesson-handcrafted", 4), ("padding-nan", 1)])
def test_built_ins_say_where_they_open(name, row):
    assert builtin(name).focus_row == row


def test_focus_row_round_trips_and_bad_values_are_refused():
    s = builtin("lesson-pipeline").with_(focus_row=2)
    assert loads(dumps(s)).focus_row == 2
    text = dumps(builtin("lesson-pipeline"))
    for bad, words in (("0", "from 1"), ("9", r"past the last query row \(5\)"), ('"2"', "whole number")):
        with pytest.raises(ValueError, match=words):
            loads(text.replace("focus_row = 4", f"focus_row = {bad}"), "f.toml")
    assert builtin("lesson-pipeline").with_(tokens=("a", "b", "c"), X=s.X[:3]).focus_row == 3  # kept in range


async def test_save_remembers_the_selected_row(tmp_path, settle):
    from attn_tui.tui.actions.files import apply_save

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        app.set_state(app.state.with_(row=1))
        await settle(pilot)
        assert apply_save(app, str(tmp_path / "s.toml"), False) is None
    assert load(tmp_path / "s.toml").focus_row == 2


async def test_file_dialogs_refuse_an_unknown_home_and_a_long_name_in_one_line(tmp_path):
    from attn_tui.tui.actions.files import apply_export, apply_open, apply_save

    app = AttentionApp()
    async with app.run_test(size=(120, 40)):
        before = app.state
        for reply in (
            apply_open(app, "~nosuchuser-xyz/a.toml"),
            apply_save(app, "~nosuchuser-xyz/a.toml", False),
            apply_export(app, "~nosuchuser-xyz/out", "csv", False),
            apply_save(app, str(tmp_path / ("x" * 300 + ".toml")), False),
            apply_export(app, str(tmp_path / ("x" * 300 + ".svg")), "svg", False),
        ):
            assert reply and "\n" not in reply and "nosuchuser" in reply or "x" * 20 in reply
        assert app.state is before and app.return_code is None


async def test_a_refusal_is_withdrawn_once_a_change_goes_through(tmp_path):
    from attn_tui.tui.actions.files import apply_open

    app = AttentionApp()
    async with app.run_test(size=(120, 40)) as pilot:
        assert apply_open(app, str(tmp_path)) is not None  # a folder: refused, with a notice
        await pilot.pause()
        assert any("Not opened" in t for t in app.notes.titles())
        assert apply_open(app, "padding-nan") is None
        await pilot.pause()
        assert not any("Not opened" in t for t in app.notes.titles())  # no stale contradiction
