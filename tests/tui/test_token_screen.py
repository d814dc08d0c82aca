"""The token view (T) and the model view (M), driven as a learner would: the text's shades are A's
row (or column) on A's own buckets, j/k and left/right move the query, f flips, > moves heads,
masked keys are marked, a 4,096-token file scrolls and flips without a T x T matrix."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen
from attn_tui.tui.widgets import palette as P
from attn_tui.tui.widgets.token_text import BLOCKED, TokenText

SIZE = (120, 40)
REPEAT = "q w e r q w e r"


def _app(tokens=REPEAT):
    s, ref = open_ref("induction-demo", tokens)
    return AttentionApp(scenario=s, head=ref)


async def _tokens(pilot, settle) -> TokenText:
    await settle(pilot)
    await pilot.press("T")
    await settle(pilot)
    assert isinstance(pilot.app.screen, TokensScreen), (pilot.app.screen, pilot.app.focused)
    return pilot.app.screen.query_one(TokenText)


def _row(app, t):
    return np.asarray(app.state.trace.A[t], dtype=np.float64)


async def test_the_shades_are_row_t_of_A_and_the_query_is_outlined(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        t = app.state.row
        A = _row(app, t)
        assert text.selected == t
        seen = np.arange(len(A)) <= t
        assert text.codes[~seen].tolist() == [BLOCKED] * int((~seen).sum())  # masked, not a 0
        assert text.codes[seen].tolist() == P.buckets(A[seen], "seq").tolist()
        assert int(np.argmax(text.codes)) == int(np.argmax(A))  # the strongest key has the strongest shade
        for key, step in (("j", 1), ("right", 1), ("k", -1), ("left", -1)):
            before = app.state.row
            await pilot.press(key)
            await settle(pilot)
            assert app.state.row == before + step and text.selected == app.state.row
        t = app.state.row
        assert text.codes[: t + 1].tolist() == P.buckets(_row(app, t)[: t + 1], "seq").tolist()


async def test_f_flips_to_the_column_and_back(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        t = app.state.row
        await pilot.press("f")
        await settle(pilot)
        col = np.asarray(app.state.trace.A[:, t], dtype=np.float64)
        assert text.codes[t:].tolist() == P.buckets(col[t:], "seq").tolist()
        assert text.codes[:t].tolist() == [BLOCKED] * t  # earlier queries cannot see a later key
        assert "who looks at" in pilot.app.screen.query_one("#tokens-header").plain
        await pilot.press("j")  # moves t, not the query row
        await settle(pilot)
        assert app.state.row == t and text.selected == t + 1
        await pilot.press("f")
        await settle(pilot)
        assert app.state.row == t + 1 and "who does" in pilot.app.screen.query_one("#tokens-header").plain


async def test_heads_move_under_the_same_sentence(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        first = text.codes.copy()
        await pilot.press("greater_than_sign", "right_curly_bracket")
        await settle(pilot)
        assert (app.state.head.layer, app.state.head.head) == (1, 1)
        assert "layer 1 · head 1" in pilot.app.screen.query_one("#tokens-header").plain
        t = app.state.row
        assert text.codes[: t + 1].tolist() == P.buckets(_row(app, t)[: t + 1], "seq").tolist()
        assert text.codes.tolist() != first.tolist()


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "xterm", "COLORTERM": ""}])
async def test_without_a_colour_scale_each_token_gets_a_bar(settle, monkeypatch, env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        text = await _tokens(pilot, settle)
        assert text.glyphs
        line = text.render_line(0).text
        legend = pilot.app.screen.query_one("#tokens-legend").plain
        assert any(g in line for g in P.BARS) and "bar after each token" in legend


@pytest.mark.parametrize("size", [(20, 6), (80, 24), (200, 60)])
async def test_every_size_draws(settle, size):
    app = _app()
    async with app.run_test(size=size) as pilot:
        text = await _tokens(pilot, settle)
        assert len(text.texts) == 8
        await pilot.press("j", "f", "M")
        await settle(pilot)


async def test_the_model_view_lists_every_head_and_every_layer(settle):
    from attn_tui.core.heads import head_scenario

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("M")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ModelScreen)
        lines = pilot.app.screen.query_one("#model-heads").plain.splitlines()
        assert len(lines) == 4 and all(f"L0.H{h}" in line for h, line in enumerate(lines))
        await pilot.press("M")  # every layer
        await settle(pilot)
        lines = pilot.app.screen.query_one("#model-heads").plain.splitlines()
        assert len(lines) == 8
        t, src = app.state.row, app.state.head.source
        for line in lines:
            name = line.lstrip("▶ ").split()[0]  # "L1.H2"
            layer, head = (int(x) for x in name[1:].split(".H"))
            A = head_scenario(src, layer, head).run().A[t]
            j = int(np.argmax(A))
            assert line.split(name)[1].split()[0] == f"t{j + 1}"


async def test_a_4096_token_file_scrolls_and_flips(tmp_path, settle):
    rng = np.random.default_rng(0)
    T, d = 4096, 16
    Q, K, V = (rng.standard_normal((1, 2, T, d)).astype(np.float32) for _ in range(3))
    words = ("the", "cat", "sat", "on", "a", "mat")
    path = save_heads(tmp_path / "long.npz", Q, K, V, tokens=[words[i % 6] for i in range(T)], mask="causal")
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        assert app.state.large and len(text.texts) == T
        await pilot.press("colon")  # go to a far row: the text scrolls to it
        await settle(pilot)
        for ch in "4000":
            await pilot.press(ch)
        await pilot.press("enter")
        await settle(pilot)
        assert app.state.row == 3999 and text.selected == 3999 and text.scroll_offset.y > 0
        assert text.codes[:4000].tolist() == P.buckets(_row(app, 3999)[:4000], "seq").tolist()
        await pilot.press("f")
        await settle(pilot)
        assert text.selected == 3999 and text.codes[:3999].tolist() == [BLOCKED] * 3999
        assert (text.codes[3999:] >= 0).all()
        await pilot.press("R")  # a column of R needs all of R: above 512 tokens it is refused, said
        await settle(pilot)
        assert not pilot.app.screen.rollout and text.codes[:3999].tolist() == [BLOCKED] * 3999
        await pilot.press("f", "R")  # a row of R is read without it
        await settle(pilot)
        assert pilot.app.screen.rollout and "rollout R" in pilot.app.screen.query_one("#tokens-header").plain


async def test_the_weighting_key_shades_the_text_by_what_each_key_moves(settle):
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        await pilot.press("W")  # value-weighted: A[t, j] · ‖v_j‖ / max_k ‖v_k‖
        await settle(pilot)
        assert app.state.weighting_shown == "value"
        t = app.state.row
        V = np.asarray(app.state.trace.V, dtype=np.float64)
        norms = np.linalg.norm(V, axis=1)
        want = _row(app, t)[: t + 1] * norms[: t + 1] / norms.max()
        assert text.codes[: t + 1].tolist() == P.buckets(want, "seq").tolist()
        assert "value-weighted" in pilot.app.screen.query_one("#tokens-header").plain
        assert "value-weighted" in pilot.app.screen.query_one("#tokens-legend").plain


async def test_a_captured_models_tokens_read_as_text(tmp_path, settle, monkeypatch):
    """A file as `attn-tui capture` writes one: labels with their own leading spaces (token_label of the
    tokenizer's Ġ-tokens) and raw_tokens: the text is joined as the model reads it, no space added."""
    from attn_tui.core.heads.capture_check import token_label

    raw = ["The", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat", ".", "ĠThe", "Ġcat", "Ġsat", "Ċ", "Ġit"]
    labels = [token_label(r) for r in raw]
    monkeypatch.setenv("TERM", "xterm-256color")  # colours: no bar glyph between the tokens
    monkeypatch.setenv("COLORTERM", "truecolor")
    rng = np.random.default_rng(5)
    Q, K, V = (rng.standard_normal((1, 2, len(raw), 4)).astype(np.float32) for _ in range(3))
    path = save_heads(tmp_path / "cap.npz", Q, K, V, tokens=labels, raw_tokens=raw, mask="causal")
    s, ref = open_ref(str(path))
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        assert text.joined and text.texts[1] == " cat" and text.texts[10] == "↵"
        first = text.render_line(0).text
        assert first.lstrip().startswith("The cat sat on the mat. The cat sat↵")  # as written, one line
        assert text.render_line(2).text.lstrip().startswith("it") or "[ it]" in text.render_line(2).text
        header = pilot.app.screen.query_one("#tokens-header").plain
        assert f"t{app.state.row + 1}" in header


async def test_R_shows_the_rollout_of_the_whole_model(settle):
    """R: row t of the attention rollout, checked against a loop over the layers written here."""
    from attn_tui.core.heads import head_scenario

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        await pilot.press("R")
        await settle(pilot)
        src, t = app.state.head.source, app.state.row
        R = np.eye(src.T)
        for layer in range(src.n_layers):
            mean = sum(head_scenario(src, layer, h).run().A for h in range(src.n_heads)) / src.n_heads
            R = (0.5 * mean + 0.5 * np.eye(src.T)) @ R
        assert text.codes.tolist() == P.buckets(R[t], "seq").tolist()
        assert "rollout R" in pilot.app.screen.query_one("#tokens-header").plain
        await pilot.press("greater_than_sign")  # another head: R is the whole model's, unchanged
        await settle(pilot)
        assert text.codes.tolist() == P.buckets(R[t], "seq").tolist()
        await pilot.press("f")  # the column of R
        await settle(pilot)
        assert text.codes.tolist() == P.buckets(R[:, t], "seq").tolist()
        await pilot.press("R")  # back to the head's A
        await settle(pilot)
        assert "rollout" not in pilot.app.screen.query_one("#tokens-header").plain


async def test_R_on_one_head_says_why_not(settle):
    from attn_tui.core import builtin

    app = AttentionApp(scenario=builtin("lesson-pipeline"))
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        before = text.codes.copy()
        await pilot.press("R")
        await settle(pilot)
        assert not pilot.app.screen.rollout and text.codes.tolist() == before.tolist()


async def test_the_key_bar_names_each_move_once(settle):
    """The token view's bar showed "j/k token" and the app's "k/j row" (its [ ] keys, displayed by
    the j/k the view takes over): a key the screen binds itself is named only by the screen."""
    from attn_tui.tui.widgets.key_bar import KeyBar

    app = _app()
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        pipeline_bar = app.screen.query_one(KeyBar).render_line(0).text
        assert "k/j row" in pipeline_bar  # the pipeline's own: nothing takes j/k over there
        await _tokens(pilot, settle)
        bar = app.screen.query_one(KeyBar).render_line(0).text
        assert "j/k token" in bar and "row" not in bar, bar
        await pilot.press("M")
        await settle(pilot)
        assert isinstance(app.screen, ModelScreen)
        bar = app.screen.query_one(KeyBar).render_line(0).text
        assert "j/k query" in bar and " row" not in bar, bar


async def test_the_model_view_offers_only_the_keys_that_change_it(settle):
    """The model view shows the model's own weights: `+`, `m`, `u`, `P` changed only the status line
    there, and its bar named them. They are off there (and left off its bar); j/k and heads still move."""
    from attn_tui.tui.widgets.key_bar import KeyBar

    app = _app()
    async with app.run_test(size=(200, 40)) as pilot:
        await _tokens(pilot, settle)
        await pilot.press("M")
        await settle(pilot)
        assert isinstance(app.screen, ModelScreen)
        before = app.state
        await pilot.press("plus", "m", "u", "P")
        await settle(pilot)
        assert app.state is before  # nothing changed unseen
        bar = app.screen.query_one(KeyBar).render_line(0).text
        assert not any(w in bar for w in ("multiplier", "Mask", "Scale", "Pin")), bar
        await pilot.press("j")
        await settle(pilot)
        assert app.state.row == before.row + 1
        await pilot.press("p")  # back on the pipeline the knobs work again
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert app.state.scenario.c > before.scenario.c


async def test_brackets_move_the_token_shown_after_a_flip(settle):
    """After `f` the view shows t (a column of A): `]` moved the query row unseen; it moves t, as j does."""
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        t = app.state.row
        await pilot.press("f", "right_square_bracket")
        await settle(pilot)
        assert app.state.row == t and text.selected == t + 1
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert text.selected == t


async def test_new_tokens_typed_on_the_token_view_keep_its_shades(settle, monkeypatch):
    """`i` on the token view, new letters, Enter: the text came back unshaded (the grid rules were read
    under the token text, which they do not match, once the dialog's style sheet was added)."""
    monkeypatch.setenv("COLORTERM", "truecolor")
    from textual.widgets import Input

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)

        def shades() -> set:
            return {seg.style.bgcolor for seg in text.render_line(0) if seg.text.strip() and seg.style}

        before = shades()
        assert len(before) > 1, before  # tokens on more than one shade
        await pilot.press("i")
        await settle(pilot)
        app.screen.query_one(Input).value = "a b c d a e f a b g h"
        await pilot.press("enter")
        await settle(pilot)
        text = app.screen.query_one(TokenText)
        assert app.state.scenario.T == 11
        assert len(shades()) > 1 and shades() & before, (shades(), before)


@pytest.mark.parametrize("n", [11, 12, 20])
async def test_the_last_token_is_always_numbered(settle, monkeypatch, n):
    """From 10 on the positions row numbers every other token; with 11 tokens it ended at 10, t11 bare
    (in colour: without colours each token's glyph leaves room for every number)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLORTERM", "truecolor")
    app = _app(" ".join("abcdabcdefghijklmnopqrst"[i] for i in range(n)))
    async with app.run_test(size=SIZE) as pilot:
        text = await _tokens(pilot, settle)
        for _ in range(n):
            await pilot.press("j")
        await settle(pilot)
        assert text.selected == n - 1 and not text.glyphs
        numbers = [int(x) for x in "".join(seg.text for seg in text.render_line(1)).split()]
        assert numbers[-1] == n and numbers == sorted(numbers) and numbers[0] == 1, numbers


async def test_the_rollout_says_what_it_is_under_a_weighting(settle):
    """W (value-weighted) then R: the legend went on describing the weighted A, which R is not (R is the
    model's own attention, weighted by nothing), and the header said "the share of t's mixture"."""
    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await _tokens(pilot, settle)
        await pilot.press("W")
        await settle(pilot)
        legend = app.screen.query_one("#tokens-legend").render_line(0).text
        assert "weighted" in legend
        await pilot.press("R")
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        t = app.state.row + 1
        header = app.screen.query_one("#tokens-header")
        lines = " ".join(header.render_line(y).text for y in range(header.size.height))
        assert f"rollout R (every layer: heads averaged, Ã = ½Ā + ½I), its estimate of what t{t} draws" in " ".join(
            lines.split()
        ), lines  # an estimate under rollout's assumptions (issue 51 item 2)
        legend = app.screen.query_one("#tokens-legend")
        words = " ".join(legend.render_line(y).text for y in range(legend.size.height))
        assert "weighted" not in words and "W, c, the mask and edits do not change it" in words, words


async def test_the_heads_screen_offers_only_the_keys_that_change_it(settle):
    """The heads screen's tiles are the model's own heads: `+`, `m`, `u` changed only the status line
    and its bar named them, beside two "Tokens" (i: new tokens; T: the token view). W still weights."""
    from attn_tui.tui.screens.heads import HeadsScreen
    from attn_tui.tui.widgets.key_bar import KeyBar

    app = _app()
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(app.screen, HeadsScreen)
        before = app.state
        await pilot.press("plus", "m", "u")
        await settle(pilot)
        assert app.state is before
        bar = app.screen.query_one(KeyBar).render_line(0).text
        assert not any(w in bar for w in ("multiplier", "Mask", "Scale")), bar
        assert "i New tokens" in bar and bar.count("Tokens") <= 1, bar
        await pilot.press("W")
        await settle(pilot)
        assert app.state.weighting == "value"


async def test_the_model_views_legend_is_whole_at_80_by_24(settle):
    """At 80×24 the legend was cut at "after copy = the token after an earlier occurrence o…", ten empty
    rows above it: the definition of the induction label was the part lost."""
    app = _app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _tokens(pilot, settle)
        await pilot.press("M")
        await settle(pilot)
        legend = app.screen.query_one("#model-legend")
        words = " ".join(legend.render_line(y).text.strip() for y in range(legend.size.height))
        assert "what an induction head reads" in words and "…" not in words, words


def test_each_key_is_named_for_what_it_is_to_the_query():
    """The model view's labels, on "a b c a b" from the query t5 "b" (0-based 4): its earlier copy t2 is
    "copy" (the heads screen's dup, unlabelled before), the token after the earlier "b" is "after copy"."""
    from attn_tui.tui.views.model_view import relation

    ids = ["a", "b", "c", "a", "b"]
    got = {j + 1: relation(ids, True, 4, j) for j in range(5)}
    assert got == {1: "first", 2: "copy", 3: "after copy", 4: "prev", 5: "self"}
    assert relation(ids, True, 3, 0) == "first, copy"  # t4 "a": t1 is first and a copy, and says both
    assert relation(["a", "a", "b", "a"], True, 3, 2) == "prev, after copy"  # t3 follows the earlier t2 "a"
    assert relation(ids, False, 4, 0) == "first" and relation(ids, False, 4, 1) == ""  # keys of another sequence


async def test_the_text_dialog_says_how_long_a_text_the_model_was_trained_on(settle):
    """Review: the `i` dialog said "any English text, up to 1,024 tokens" and nothing of the 256 tokens
    text-demo was trained on (its metadata's n_ctx_train)."""
    from attn_tui.core.models import MODELS
    from attn_tui.tui.screens.editor import FormScreen

    s, ref = open_ref("text-demo", "The cat sat.")
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)
        entry = MODELS["text-demo"]
        most, n_ctx = entry.trained_up_to(), entry.model().n_ctx
        assert f"up to {n_ctx:,} tokens; trained on texts of up to {most:,}" in app.screen.title_text
