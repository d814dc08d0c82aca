"""Every caption and worked example of the README and docs/HEADS.md against the program (issue 51):
each test reads the sentence from the page (its command, its tokens, its keys, its numbers) and
recomputes what it claims with the command or the core, so a page that drifts from the program, or a
program that drifts from its page, fails here. (The TransformerLens worked example is checked in
tests/core/test_heads_known_answers.py, the pictures themselves in tests/test_readme_assets.py.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from attn_tui.core.heads import layer_readings, open_heads
from attn_tui.core.heads.query_top import query_tops
from attn_tui.report.heads_text import heads_text
from attn_tui.tui.views.model_view import relation
from tests.tui.app_fixtures import settle  # noqa: F401 (a fixture: the README drives below run the app)

ROOT = Path(__file__).resolve().parent.parent


def page(name: str) -> str:
    """The page as one line of words (a sentence may wrap anywhere)."""
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())


def found(pattern: str, text: str) -> re.Match:
    m = re.search(pattern, text)
    assert m, f"the page no longer says {pattern!r}"
    return m


def measure_script():
    spec = importlib.util.spec_from_file_location("measure", ROOT / "scripts" / "measure_induction_demo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


async def test_the_readme_token_view_caption_is_what_its_command_and_keys_show(settle):  # noqa: F811 (the fixture)
    """The README's command (its --tokens), then the caption's keys, on the app as the command opens
    it: the caption's query, head and heaviest key with its weight are on the token view."""
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.heads_nav import open_ref

    readme = page("README.md")
    tokens = found(r'`attn-tui --scenario induction-demo --tokens "([a-z ]+)"`', readme).group(1)
    cap = found(
        r"!\[The token view of that command after the keys ([^:]+): query t(\d+) \"(\w)\" in layer (\d), "
        r"head (\d) reads t(\d+) \"(\w)\", the token after the earlier \"(\w)\" \((0\.\d{3})\)\]\(assets/tokens\.svg\)",
        readme,
    )
    keys, t, tok, layer, head, j, key_tok, earlier, weight = cap.groups()
    words = tokens.split()
    assert words[int(t) - 1] == tok == earlier and words[int(j) - 1] == key_tok and words[int(j) - 2] == earlier
    s, ref = open_ref("induction-demo", tokens)  # what `--scenario induction-demo --tokens` opens: head 0.0
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in keys.split():
            await pilot.press({">": "greater_than_sign", "}": "right_curly_bracket"}.get(key, key))
            await settle(pilot)
        st = app.state
        assert (st.head.layer, st.head.head, st.row) == (int(layer), int(head), int(t) - 1)
        top = app.screen.query_one("#tokens-top").render_line(0).text
        assert f"t{j} {key_tok} {weight}" in top.split(": ", 1)[1].split(" · ")[0], top  # the heaviest key


def test_heads_md_token_view_example_is_what_the_heads_give():
    doc = page("docs/HEADS.md")
    m = found(
        r'On `attn-tui --scenario induction-demo --tokens "([a-z ]+)"`, layer (\d) head (\d) at t(\d+) "(\w)" '
        r'\(the second "\w"\): the brightest token is t(\d+) "(\w)", the token that followed the first "\w" '
        r'\((0\.\d{3})\): .*? On layer (\d) head (\d) the same query lights t(\d+) "(\w)", the previous token',
        doc,
    )
    tokens, layer, head, t, tok, j, key_tok, w, layer2, head2, j2, tok2 = m.groups()
    src = open_heads("induction-demo", tokens)
    q = int(t) - 1
    assert src.tokens[q] == tok and src.tokens[int(j) - 1] == key_tok and src.tokens[int(j2) - 1] == tok2
    top = query_tops(src, q, int(layer))[int(head)].top[0]
    assert (top[0] + 1, f"{top[1]:.3f}") == (int(j), w)
    assert query_tops(src, q, int(layer2))[int(head2)].top[0][0] == int(j2) - 1 == q - 1


def test_heads_md_model_view_example_is_what_its_command_prints():
    """The model view's example names the `heads --query` command that prints the same weights: run it."""
    doc = page("docs/HEADS.md")
    m = found(
        r'at t(\d+) "(\w)" \(`attn-tui heads induction-demo --tokens "([a-z ]+)" --query (\d+)` prints the same '
        r"weights\): layer 0's head 0 reads `t(\d+) (\w) prev` \((0\.\d{3})\) and layer 1's four heads "
        r"`t(\d+) (\w) after copy` at (0\.\d\d)–(0\.\d\d)",
        doc,
    )
    t, tok, tokens, query, j0, tok0, w0, j1, tok1, lo, hi = m.groups()
    assert t == query
    src = open_heads("induction-demo", tokens)
    out = heads_text(src, query=int(query) - 1)
    assert f"where query t{t} ('{tok}') looks" in out
    assert f"L0.H0  t{j0} '{tok0}' {w0}" in out
    q, ids = int(t) - 1, src.ids
    assert relation(ids, True, q, int(j0) - 1) == "prev" and relation(ids, True, q, int(j1) - 1) == "after copy"
    layer1 = [ht.top[0] for ht in query_tops(src, q, 1)]
    assert {j for j, _ in layer1} == {int(j1) - 1} and src.tokens[int(j1) - 1] == tok1
    weights = sorted(w for _, w in layer1)
    assert (f"{weights[0]:.2f}", f"{weights[-1]:.2f}") == (lo, hi)
    other = found(r"Layer 0's head 1 puts (0\.\d\d) on t(\d+) here too", doc)
    row = dict(query_tops(src, q, 0)[1].top)
    assert f"{row[int(other.group(2)) - 1]:.2f}" == other.group(1)


def test_heads_md_q_w_e_r_example_is_what_the_readings_give():
    doc = page("docs/HEADS.md")
    m = found(
        r'On `"([a-z ]+)"` the previous-token head scores (0\.\d\d) at (0\.\d\d) bits and the induction heads '
        r"(\d\.\d\d)–(\d\.\d\d) at (0\.\d\d)–(0\.\d\d) bits, against a mean ceiling of (\d\.\d\d) bits",
        doc,
    )
    tokens, prev, prev_h, ind_lo, ind_hi, h_lo, h_hi, ceiling = m.groups()
    src = open_heads("induction-demo", tokens)
    prev_head = layer_readings(src, 0)[0]
    assert (f"{prev_head.prev_token:.2f}", f"{prev_head.mean_entropy_bits:.2f}") == (prev, prev_h)
    ind = layer_readings(src, 1)
    assert f"{min(r.induction for r in ind):.2f}" == ind_lo and f"{max(r.induction for r in ind):.2f}" == ind_hi
    hs = [r.mean_entropy_bits for r in ind]
    assert (f"{min(hs):.2f}", f"{max(hs):.2f}", f"{prev_head.mean_ceiling_bits:.2f}") == (h_lo, h_hi, ceiling)


@pytest.fixture(scope="module")
def measured():
    mod = measure_script()
    m = mod.shipped_model()
    return mod.summary(mod.per_head(m)), mod.repeat_cells(m)


def test_heads_md_measured_figures_are_the_scripts(measured):
    """Every figure HEADS.md quotes from scripts/measure_induction_demo.py, recomputed by its functions."""
    table, repeats = measured
    doc = page("docs/HEADS.md")

    def cell(layer, head, field):
        return table[(layer, head)][field].replace("-", "–")

    assert f"| layer 0, head 0: previous-token | `prev_token` {cell(0, 0, 'prev_token')} |" in doc
    assert f"{cell(0, 0, 'mean_entropy_bits')} |" in doc and f"{cell(1, 2, 'mean_entropy_bits')} |" in doc
    assert f"| layer 1, head 2: induction | `induction` {cell(1, 2, 'induction')} |" in doc
    assert f"mean ceiling log₂ t of {cell(0, 0, 'mean_ceiling_bits').replace(' (', ' bits (')}" in doc
    assert f"head 1's `prev_token` is {cell(0, 1, 'prev_token')}" in doc
    medians = {k: {f: float(v.split()[0]) for f, v in row.items()} for k, row in table.items()}
    ind = [medians[(1, h)]["induction"] for h in range(4)]
    assert f"(`induction` {min(ind):.2f}–{max(ind):.2f})" in doc
    assert f"(`self` {medians[(0, 2)]['self_token']:.2f})" in doc
    assert f"(`self` {medians[(0, 1)]['self_token']:.2f}," in doc
    assert f"its `prev_token` is {medians[(0, 1)]['prev_token']:.2f}" in doc  # the model view's paragraph
    for r, cells in repeats.items():
        assert f"| {r} | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" in doc


def test_explorer_md_captions_are_what_the_heads_give():
    """docs/EXPLORER.md's captions of the token and model views: their tokens, query and heaviest keys."""
    doc = page("docs/EXPLORER.md")
    m = found(
        r"the sentence ([a-z ]+), each token shaded by the weight query t(\d+) \"(\w)\" gives it in layer (\d), "
        r"head (\d): t(\d+) \"(\w)\", the token after the earlier \"\w\", is the brightest \((0\.\d{3})\)",
        doc,
    )
    tokens, t, tok, layer, head, j, key_tok, w = m.groups()
    src = open_heads("induction-demo", tokens)
    assert src.tokens[int(t) - 1] == tok and src.tokens[int(j) - 1] == key_tok
    top = query_tops(src, int(t) - 1, int(layer))[int(head)].top[0]
    assert (top[0] + 1, f"{top[1]:.3f}") == (int(j), w)
    m = found(
        r"The model view on induction-demo with the tokens ([a-z ]+): where query t(\d+) \"(\w)\" looks in every "
        r"head of both layers, .*?layer 0's previous-token head \(head (\d)\) on t(\d+), layer 1's induction heads "
        r"on t(\d+) \"(\w)\"",
        doc,
    )
    tokens, t, tok, prev_head, j0, j1, tok1 = m.groups()
    src = open_heads("induction-demo", tokens)
    q = int(t) - 1
    assert src.tokens[q] == tok and src.tokens[int(j1) - 1] == tok1
    assert query_tops(src, q, 0)[int(prev_head)].top[0][0] == int(j0) - 1 == q - 1
    assert {ht.top[0][0] for ht in query_tops(src, q, 1)} == {int(j1) - 1}


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_readme_counts_the_tabs_to_the_x_grid(size, settle):  # noqa: F811 (the fixture)
    """ "`tab` five times to the X grid": the count and the panes on the way are what the explorer does."""
    from attn_tui.tui.app import AttentionApp

    m = found(r"`tab` (\w+) times to the X grid \(([^)]+): the explorer opens on A\)", page("README.md"))
    n = ["one", "two", "three", "four", "five", "six", "seven"].index(m.group(1)) + 1
    app = AttentionApp()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        seen = [app.focused.id]
        for _ in range(n):
            await pilot.press("tab")
            await settle(pilot)
            seen.append(app.focused.id)
    assert seen[0] == "grid-A" and seen[-1] == "grid-X" and "grid-X" not in seen[:-1], seen
    names = {"grid-A": "A", "grid-O": "O", "grid-H": "H", "chart": "the chart", "inspector": "the inspector"}
    assert ", ".join(names[i] for i in seen[:-1]) + ", then X" == m.group(2)


def test_the_readme_text_demo_caption_is_what_the_model_gives():
    """The README's text-demo picture: its query, head, heaviest key and weight, the model's top next token
    with its probability, and that head's share of the logit, recomputed from the shipped model."""
    import numpy as np

    from attn_tui.report.prediction_text import prediction_of

    readme = page("README.md")
    cap = found(
        r"!\[The token view of text-demo on its own sentence, layer (\d), head (\d), query t(\d+) \"( \w+)\" "
        r"\(the second\): it puts (0\.\d{3}) of its weight on t(\d+) \"( \w+)\", the token after the first "
        r"\"( \w+)\", and the model predicts \"( \w+)\" \((0\.\d{3})\), L(\d)\.H(\d)'s share of that logit "
        r"\+(\d\.\d\d)\]\(assets/text\.svg\)",
        readme,
    )
    layer, head, t, tok, weight, j, key_tok, first, said, p, pl, ph, share = cap.groups()
    src = open_heads("text-demo")  # the README's command: its own sentence
    labels, t, j = src.tokens, int(t) - 1, int(j) - 1
    assert labels[t] == tok == first and labels[j] == key_tok and labels[j - 1] == first  # after the first copy
    row = src.run.A[int(layer), int(head), t]
    assert int(np.argmax(row)) == j and f"{row[j]:.3f}" == weight
    pred = prediction_of(src, t)
    assert pred.top[0][0] == said and f"{pred.top[0][1]:.3f}" == p
    part = next(x for x in pred.parts if (x.layer, x.head) == (int(pl), int(ph)))
    assert (pl, ph) == (layer, head) and f"{part.logit:.2f}" == share
