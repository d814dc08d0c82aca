"""A captured file's own prediction on the token view (T) and the model view (M): a file made by the
capture's writer (tests/core/captured_files.py) with its top 10 and top_readout; the headline names the
stored top token, `n` walks the heads by their direct parts (recomputed in tests/core/test_captured_top.py's
way from the arrays), the rest is named for what it is; a file without top_readout shows the top and says
why no parts (`n` refuses), a BERT-like file says it has no LM head, and a label holding markup is shown
as written."""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads.captured_top import NO_HEAD, REST, WHY_NO_PARTS
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.prediction import p_text
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import first_head
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen
from tests.core.captured_files import VOCAB, own_shares, write_captured

SIZE = (120, 40)
NONE = dict.fromkeys(("top_ids", "top_p", "top_logit", "top_readout", "top_tokens"))


def _app(path) -> AttentionApp:
    s, ref = first_head(open_heads(str(path)), str(path))
    return AttentionApp(scenario=s, head=ref)


async def _press(pilot, settle, *keys):
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def test_the_token_view_shows_the_stored_top_and_n_walks_the_heads_parts(settle, tmp_path):
    a = write_captured(tmp_path / "c.safetensors")
    app = _app(tmp_path / "c.safetensors")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T", "k")
        t = app.state.row
        assert isinstance(app.screen, TokensScreen)
        lines = app.screen.query_one("#tokens-predict").plain.splitlines()
        top = a["top_ids"][t]
        assert lines[0].startswith(f"predicts {VOCAB[top[0]]!r} {p_text(float(a['top_p'][t, 0]))}; ")
        assert lines[1] == "next: " + " · ".join(
            f"{VOCAB[i]!r} {p_text(float(q))}" for i, q in zip(top[:5], a["top_p"][t])
        )
        assert "the heads' direct parts (the final norm's 1/σ held)" in lines[2] and "not captured" in lines[2]
        assert lines[2].endswith(f" · {REST}") or f" · {REST} " in lines[2]
        shares = own_shares({k: v.astype(np.float32).astype(np.float64) for k, v in a.items()}, t)
        ranking = sorted(np.ndindex(*shares.shape), key=lambda k: -shares[k])
        start = ranking.index((0, 0))
        for k in range(1, len(ranking) + 1):
            await _press(pilot, settle, "n")
            assert (app.state.head.layer, app.state.head.head) == ranking[(start + k) % len(ranking)]
        await _press(pilot, settle, "M")
        assert isinstance(app.screen, ModelScreen)
        block = app.screen.query_one("#model-predict").plain
        assert "the heads' direct parts" in block and f"  {REST} " in block or f"▶ {REST} " in block


async def test_without_the_readout_the_top_and_why_no_parts(settle, tmp_path):
    write_captured(tmp_path / "c.safetensors", hostile={"top_readout": None}, about={"k": 10, "by_head": "layers"})
    app = _app(tmp_path / "c.safetensors")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        lines = app.screen.query_one("#tokens-predict").plain.splitlines()
        assert lines[0].startswith("predicts ") and lines[1].startswith("next: ")
        assert lines[2] == WHY_NO_PARTS["layers"]
        await _press(pilot, settle, "n")
        assert (app.state.head.layer, app.state.head.head) == (0, 0)
        await _press(pilot, settle, "M")
        assert WHY_NO_PARTS["layers"] in app.screen.query_one("#model-predict").plain


async def test_a_model_without_an_lm_head_says_so(settle, tmp_path):
    write_captured(tmp_path / "c.safetensors", hostile=NONE, about={"none": "no_lm_head"})
    app = _app(tmp_path / "c.safetensors")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        assert app.screen.query_one("#tokens-predict").plain == NO_HEAD
        await _press(pilot, settle, "M")
        assert app.screen.query_one("#model-predict").plain.startswith(NO_HEAD)


async def test_a_label_holding_markup_is_shown_as_written(settle, tmp_path):
    a = write_captured(tmp_path / "c.safetensors", hostile={"top_tokens": [f"[bold]{v}[/]" for v in VOCAB]})
    app = _app(tmp_path / "c.safetensors")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        first = app.screen.query_one("#tokens-predict").plain.splitlines()[0]
        assert first.startswith(f"predicts '[bold]{VOCAB[a['top_ids'][app.state.row, 0]]}[/]' ")


async def test_a_row_of_the_readout_that_is_not_finite_is_one_line_in_both_views(settle, tmp_path):
    """The readout is read a row at a time, in a worker: a non-finite row is the reader's one line, the
    views stay up and the next row, finite, predicts again."""
    bad = np.zeros((8, 8), np.float32)
    bad[4, 0] = np.nan
    write_captured(tmp_path / "c.safetensors", hostile={"top_readout": bad})
    app = _app(tmp_path / "c.safetensors")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, settle, "T")
        assert app.state.row == 4  # the first repeated token: the row holding the NaN
        said = app.screen.query_one("#tokens-predict").plain
        assert said == f"{tmp_path / 'c.safetensors'}: top_readout: row 5, column 1 is nan; entries must be finite"
        await _press(pilot, settle, "j")
        assert app.state.row == 5 and app.screen.query_one("#tokens-predict").plain.startswith("predicts ")
        await _press(pilot, settle, "k", "M")
        assert app.screen.query_one("#model-predict").plain.startswith(said)
