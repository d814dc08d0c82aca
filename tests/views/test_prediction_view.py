"""What the token and model views say of the prediction (views/prediction_view.py): the headline, the top
five and each part's line, checked against the demo's forward written again in the tests
(tests/core/demo_forward.py) and A's row recomputed there; a source with no model says why in one line."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import builtin
from attn_tui.core.heads.door import open_heads
from attn_tui.core.heads.prediction import NO_PREDICTION
from attn_tui.tui.heads_nav import first_head, open_ref
from attn_tui.tui.state import State
from attn_tui.tui.views import prediction_view as pv
from tests.core.demo_forward import REPEAT, own_forward
from tests.core.headtools import save_source

LETTERS = REPEAT.split()
VOCAB = "abcdefghijklmnopqrstuvwxyz"


def _state(t: int) -> State:
    s, ref = open_ref("induction-demo", REPEAT, layer=1, head=2)
    return State(s, head=ref, row=t)


def test_the_headline_names_the_token_and_the_head_with_the_largest_share():
    t = 10  # t11 'e': its earlier copy t3 is followed by t4 'r'
    logits, _, writes, W_U = own_forward(REPEAT)
    tok = int(np.argmax(logits[t]))
    p = np.exp(logits[t] - logits[t].max())
    p /= p.sum()
    shares = {k: float(o[t] @ W_U[:, tok]) for k, o in writes.items()}
    (ly, h), best = max(shares.items(), key=lambda kv: kv[1])
    st = _state(t)
    v = pv.prediction_view(st, pv.prediction_at(st))
    head = st.head.source
    row = head.weights_block(ly, h)(t, t + 1)[0][0]
    j = int(np.argmax(row))
    assert v.headline.startswith(f"predicts {VOCAB[tok]!r} {p[tok]:.3f}; L{ly}.H{h} {best:+.1f} ")
    assert f"(looks at t{j + 1} {LETTERS[j]!r}" in v.headline
    assert v.headline.endswith(", after copy)") and LETTERS[j - 1] == LETTERS[t]  # j follows an earlier 'e'
    assert v.top.startswith(f"next: {VOCAB[tok]!r} ") and v.top.count("·") == 4
    assert [line.head for line in v.parts if line.head] == sorted(shares, key=lambda k: -shares[k])
    assert sum(line.head is None for line in v.parts) == 1
    assert "sum to the logit exactly, for an attention-only model" in v.sums and "no MLP part" in v.sums


def test_a_file_of_heads_and_a_single_head_say_why_there_is_no_prediction(tmp_path):
    path = save_source(open_heads("induction-demo", REPEAT), tmp_path / "heads.npz")
    s, ref = first_head(open_heads(str(path)), str(path))
    assert pv.why_none(State(s, head=ref)) == NO_PREDICTION
    assert pv.prediction_at(State(s, head=ref)) is None
    assert pv.why_none(State(builtin("lesson-pipeline"))) == pv.ONE_HEAD


def test_the_token_views_line_marks_the_head_shown():
    st = _state(10)
    text = pv.token_lines(pv.prediction_view(st, pv.prediction_at(st)), (1, 2))
    marked = [text.plain[s.start : s.end] for s in text.spans if "reverse" in str(s.style)]
    assert len(marked) == 1 and marked[0].startswith("L1.H2 +")
    assert len(text.plain.splitlines()) == 3


def test_the_headline_docs_heads_md_quotes_is_the_views():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "HEADS.md").read_text(encoding="utf-8")
    st = _state(10)
    assert f"reads `{pv.prediction_view(st, pv.prediction_at(st)).headline}`" in page


@pytest.mark.parametrize(
    ("v", "digits", "want"),
    [(0.351, 2, "+0.35"), (-1.134, 2, "-1.13"), (-0.004, 2, "0.00"), (0.004, 2, "0.00"), (-0.04, 1, "0.0")],
)
def test_a_share_that_rounds_to_zero_has_no_sign(v, digits, want):
    assert pv.signed(v, digits) == want
