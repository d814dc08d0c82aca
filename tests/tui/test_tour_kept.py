"""Issue 42 item 12: the tour remembers where the learner was and what they answered, across
launches, kept with the session (the same file, the same rules: read through the same door)."""

from __future__ import annotations

import pytest

from attn_tui.core import session_store as store
from attn_tui.core.builtins import DEFAULT, builtin
from attn_tui.core.session_tour import TourAt
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.quiz import grade
from attn_tui.tui.session import OfferScreen, SessionKeeper
from attn_tui.tui.tour_text import PAGES
from tests.tui.tour_pilot import goto, open_tour

SIZE = (120, 40)


def keeper() -> SessionKeeper:
    return SessionKeeper(store.state_folder(), builtin(DEFAULT), DEFAULT)


def test_the_tour_goes_through_the_state_file_and_back():
    k = store.Kept(scenario=builtin(DEFAULT), tour=TourAt("mask", (("scale", 0, 1.25), ("scores", 0, None))))
    back = store.loads(store.dumps(k))
    assert back.tour == k.tour and "the tour at 'mask' (2 answered)" in back.summary()


@pytest.mark.parametrize(
    "line, words",
    [
        ("tour_page = 7", "tour_page"),
        ('tour_page = "a b"', "tour_page"),
        ('tour_page = "mask"\ntour_answers = [["mask", 0, "nan"]]', "tour_answers item 1"),
        ('tour_page = "mask"\ntour_answers = [["mask", -1, 1.0]]', "tour_answers item 1"),
        ('tour_page = "mask"\ntour_answers = [["mask", 0, 1.0, 2]]', "tour_answers item 1"),
        ('tour_page = "mask"\ntour_answers = "x"', "tour_answers"),
    ],
)
def test_a_bad_tour_in_a_state_file_is_one_line_naming_the_key(line, words):
    good = store.dumps(store.Kept(scenario=builtin(DEFAULT)))
    with pytest.raises(store.SessionError) as e:
        store.loads(line + "\n" + good, "f.toml")
    assert words in str(e.value) and "f.toml" in str(e.value) and "\n" not in str(e.value)


async def test_the_tour_is_kept_on_q_and_restored_at_the_next_launch(state_home, settle):
    app = AttentionApp(session=keeper())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tour(pilot)
        await goto(pilot, screen, "scale")
        screen.query_one("#tour-predict").value = "1.5"
        await pilot.press("enter")  # a prediction, graded
        await settle(pilot)
        await pilot.press("n")  # on to the mask page
        await settle(pilot)
        assert screen.page.key == "mask" and ("scale", 0) in screen.results
        await pilot.press("p", "q")  # no scenario edit: the tour alone is worth keeping
    (path,) = sorted((state_home / "attn-tui").glob("session-*.toml"))
    assert store.read(path).tour == TourAt("mask", (("scale", 0, 1.5),))
    again = AttentionApp(session=keeper())
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(again.screen, OfferScreen)
        assert "the tour at 'mask' (1 answered)" in str(again.screen.query_one("#session-offer-text").render())
        await pilot.press("enter")
        await settle(pilot)
        screen = await open_tour(pilot)
        await settle(pilot)
        assert screen.page.key == "mask"  # where the learner was
        scale = next(p for p in PAGES if p.key == "scale").questions[0]
        assert screen.results == {("scale", 0): grade(scale, 1.5)}  # graded again against the answer now
