"""The shipped text model's heads are real (issue 49 item 3), read by the app's own readings
(core/heads/readings.py through the text-demo door, as `attn-tui heads text-demo --text` reads them):

- on held-out English written here (not the training text, the Python docs): a previous-token head,
  prev_token >= 0.5;
- on common words in a random order, then the same words again: an induction head, induction >= 0.7
  (the mean over the sequences), and the model's top next-token prediction is the repeated token at
  >= 70 % of the second half's positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core.heads import layer_readings, open_heads
from attn_tui.core.models import MODELS
from tests.core.textmodels import shipped

pytestmark = pytest.mark.skipif(not shipped(), reason="the text model's files are not shipped yet")

HELD_OUT = (
    "My grandmother kept a small garden behind her house. Every spring she planted beans, tomatoes and "
    "a row of sunflowers along the fence. When we visited, she would hand each of us a basket and send "
    "us out to pick whatever was ripe. In the evening we sat on the porch, shelled the beans and listened "
    "to the radio until it was too dark to see our hands."
)
COMMON = (
    "the of and to in is was for on that with as it by at from this be are or an which not have but "
    "can one all were when there has if more their would will use other two new some time also only "
    "these may first any each most used such into than then them what its many way same where after "
    "both like over well how very just back work part year good people world make name number"
).split()
N_WORDS, SEQUENCES = 24, 6


def repeated_texts(n: int = N_WORDS, count: int = SEQUENCES) -> list[str]:
    """``count`` texts: n common words that are one token each (with their space), in a seeded
    random order, then the same n again."""
    tok = MODELS["text-demo"].model().tokenizer
    single = [w for w in COMMON if len(tok.encode(" " + w).ids) == 1]
    assert len(single) >= n, single  # enough common words are one token each
    rng = np.random.default_rng(2026)
    texts = []
    for _ in range(count):
        words = [single[i] for i in rng.permutation(len(single))[:n]]
        texts.append("".join(" " + w for w in words) * 2)
    return texts


def every_reading(text: str) -> list:
    src = open_heads("text-demo", text)
    return [r for layer in range(src.n_layers) for r in layer_readings(src, layer)]


def test_a_previous_token_head_on_held_out_english():
    readings = every_reading(HELD_OUT)
    best = max(readings, key=lambda r: r.prev_token)
    assert best.prev_token >= 0.5, [(r.layer, r.head, round(r.prev_token, 3)) for r in readings]


def test_an_induction_head_on_common_words_repeated_twice():
    per_text = [every_reading(t) for t in repeated_texts()]
    heads = [(r.layer, r.head) for r in per_text[0]]
    mean = {h: float(np.mean([rs[i].induction for rs in per_text])) for i, h in enumerate(heads)}
    assert max(mean.values()) >= 0.7, mean


def test_the_second_half_is_predicted():
    """Position t of the second half predicts token t + 1, the repeat of the first half's."""
    entry = MODELS["text-demo"]
    hits = []
    for text in repeated_texts():
        enc, run = entry.run(text)
        ids, n = enc.ids, len(enc.ids) // 2
        assert np.array_equal(ids[:n], ids[n:])  # the halves are the same tokens
        top = run.logits.argmax(axis=-1)
        hits += [top[t] == ids[t + 1] for t in range(n, 2 * n - 1)]
    assert np.mean(hits) >= 0.7, np.mean(hits)
