"""`attn-tui capture ... --open`: the explorer on the captured file as on any multi-head file, its
layer 0, head 0 first, the check's figure in the status line from the first frame at 120 and 80
columns, and in the header of the heads screen a key away."""

from __future__ import annotations

import pytest

from attn_tui.cli import explorer, main
from attn_tui.tui.app import AttentionApp
from tests.capture.tiny_models import require_models
from tests.tui.app_fixtures import chart_interval  # noqa: F401 (autouse: the chart unthrottled, as in tests/tui)

TEXT = "the cat sat on the mat. The cat sat."
WORDS = {  # (status line, heads screen header) at each width; {} is the figure the command printed
    120: ("max |ΔA| {} vs the model over 2 × 4 heads", "checked against the model: max |ΔA| {} over 2 × 4 heads"),
    80: ("|ΔA| {} vs model", "checked against the model: max |ΔA| {} over 2 × 4 heads"),
}


@pytest.mark.parametrize("width", [120, 80])
async def test_open_shows_the_models_heads_and_the_check(tiny_folders, tmp_path, monkeypatch, capsys, width):
    require_models()
    opened = []
    monkeypatch.setattr(explorer, "run", lambda args: opened.append(args) or 0)
    out = tmp_path / "o.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out), "--open"]) == 0
    printed = capsys.readouterr().out
    figure = printed.split("max |ΔA| ")[1].split()[0]
    assert f"wrote {out} (attn-tui --scenario {out}: the explorer on its heads;" in printed  # the explorer's door
    status_words, header_words = (w.format(figure) for w in WORDS[width])
    (args,) = opened
    assert args.run_scenario == str(out) and args.title_first is True
    scenario, head = explorer.opened(args)  # what explorer.run opens: the multi-head door
    assert head is not None
    assert scenario.mask == "causal" and scenario.tokens[1] == "cat"  # "Ġcat": a leading space, collapsed
    app = AttentionApp(scenario=scenario, head=head)
    app.first_screen = False
    async with app.run_test(size=(width, 40 if width == 120 else 24)) as pilot:
        await pilot.pause()
        assert status_words in app.screen.query_one("#status").render_line(0).text
        await pilot.press("h")  # the heads screen: every head of the captured model
        await pilot.app.workers.wait_for_complete()
        await pilot.app.screen.workers.wait_for_complete()
        await pilot.pause()
        assert type(app.screen).__name__ == "HeadsScreen" and app.screen.query_one("#head-tiles").tiles
        assert f"{header_words} · tokens: " in app.screen.query_one("#heads-header").render_line(1).text
