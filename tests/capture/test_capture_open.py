"""`attn-tui capture ... --open`: the explorer on the captured file as on any multi-head file, its
layer 0, head 0 first, the check's figure in the status line from the first frame, the heads
screen a key away."""

from __future__ import annotations

from attn_tui import cli
from attn_tui.cli import main
from attn_tui.tui.app import AttentionApp
from tests.capture.tiny_models import require_models

TEXT = "the cat sat on the mat. The cat sat."


async def test_open_shows_the_models_heads_and_the_check(tiny_folders, tmp_path, monkeypatch, capsys):
    require_models()
    opened = []
    monkeypatch.setattr(cli, "run", lambda args: opened.append(args) or 0)
    out = tmp_path / "o.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out), "--open"]) == 0
    figure = capsys.readouterr().out.split("max |ΔA| ")[1].split()[0]
    (args,) = opened
    assert args.run_scenario == str(out) and args.title_first is True
    scenario, head = cli._load_run(args)  # what cli.run opens: the multi-head door
    assert head is not None
    assert scenario.title.startswith(f"max |ΔA| {figure} vs the model")
    assert scenario.mask == "causal" and scenario.tokens[1] == "cat"  # "Ġcat": a leading space, collapsed
    app = AttentionApp(scenario=scenario, head=head)
    app.first_screen = False
    async with app.run_test(size=(200, 50)) as pilot:  # at 120 columns the head's parts leave the title no room
        await pilot.pause()
        assert f"max |ΔA| {figure} vs the model" in app.screen.query_one("#status").plain
        await pilot.press("h")  # the heads screen: every head of the captured model
        await pilot.pause()
        assert type(app.screen).__name__ != "PipelineScreen"
