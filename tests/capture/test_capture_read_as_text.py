"""A captured model read like text (issue 39): the token view joins the tokenizer's own tokens as the
model read them, labels carry positions where a token repeats, and `heads --query` lists each head's
heaviest keys with the model's own weights (the file's A, kept with --keep-A)."""

from __future__ import annotations

import json

import numpy as np

from attn_tui.cli import main
from attn_tui.core.heads.door import open_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from tests.capture.tiny_models import require_models
from tests.tui.app_fixtures import chart_interval  # noqa: F401 (autouse: the chart unthrottled, as in tests/tui)

TEXT = "the cat sat on the mat. The cat sat."


def _capture(tiny_folders, tmp_path, capsys) -> str:
    require_models()
    out = tmp_path / "cat.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out), "--keep-A"]) == 0
    capsys.readouterr()
    return str(out)


def test_heads_query_is_the_models_own_row(tiny_folders, tmp_path, capsys):
    path = _capture(tiny_folders, tmp_path, capsys)
    src = open_heads(path)
    t = src.T  # the last token: it sees every key
    assert main(["heads", path, "--query", str(t), "--json"]) == 0
    heads = json.loads(capsys.readouterr().out)["heads"]
    tol = 64 * float(np.finfo(np.float32).eps)  # the model computed in float32; the check holds it to this
    for h in heads:
        own = np.asarray(src.read("A", h["layer"], h["head"]), dtype=np.float64)[t - 1]  # the model's own A
        top = h["query"]["top"]
        assert len(top) == 5 and top[0]["weight"] >= top[-1]["weight"]
        assert abs(top[0]["weight"] - own.max()) <= tol
        for k in top:
            assert abs(k["weight"] - own[k["position"] - 1]) <= tol
            assert k["token"] == src.tokens[k["position"] - 1]  # the raw label, no position added


async def test_the_token_view_reads_the_text_as_the_model_did(tiny_folders, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    path = _capture(tiny_folders, tmp_path, capsys)
    s, ref = open_ref(path)
    app = AttentionApp(scenario=s, head=ref)
    app.first_screen = False
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        status = app.screen.query_one("#status").render_line(0).text
        assert f"row t{app.state.row + 1} " in status  # a repeated token is named by its position
        await pilot.press("T")
        await pilot.app.workers.wait_for_complete()
        await pilot.app.screen.workers.wait_for_complete()
        await pilot.pause()
        text = app.screen.query_one("#token-text")
        # the tokenizer's pieces, spaces their own; a token of a lone space shows as ␣ (capture_check.token_label)
        assert text.joined and "".join(text.texts).replace("␣", " ") == TEXT
        row = np.asarray(app.state.trace.A[app.state.row], dtype=np.float64)
        assert int(np.argmax(text.codes)) == int(np.argmax(row))
