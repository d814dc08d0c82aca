"""The shipped text model's heads, read by the app's own readings (core/heads/readings.py through the
text-demo door, as `attn-tui heads text-demo --text` reads them), on held-out English written here (not
the training text, the Python docs) and on common words in a random order, then the same words again.

Issue 49 item 3 asks for a previous-token head with prev_token >= 0.5, an induction head with
induction >= 0.7, and the repeated token as the top prediction at >= 70 % of the second half. The
shipped model (GPU pretraining, then two CPU fine-tunes: docs/TEXT_MODEL.md) reaches all three (0.535,
0.860 and 91 % here). For scale: a uniform row gives a key 1/t (about 0.03 on the second half of a
48-token text), and chance predicts one token in 4,096.
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


def best_prev_token() -> float:
    return max(r.prev_token for r in every_reading(HELD_OUT))


def best_induction() -> float:
    """The highest induction reading of a head, its mean over the repeated texts."""
    per_text = [every_reading(t) for t in repeated_texts()]
    return max(float(np.mean([rs[i].induction for rs in per_text])) for i in range(len(per_text[0])))


def second_half_hits() -> float:
    """The share of the second half's positions t whose top prediction is token t + 1, the repeat of the
    first half's."""
    entry = MODELS["text-demo"]
    hits = []
    for text in repeated_texts():
        enc, run = entry.run(text)
        ids, n = enc.ids, len(enc.ids) // 2
        assert np.array_equal(ids[:n], ids[n:])  # the halves are the same tokens
        top = run.logits.argmax(axis=-1)
        hits += [top[t] == ids[t + 1] for t in range(n, 2 * n - 1)]
    return float(np.mean(hits))


def test_issue_target_a_previous_token_head_on_held_out_english():
    """Reached by the second CPU fine-tune (the GPU pretraining alone: 0.42; the first fine-tune: 0.43)."""
    assert best_prev_token() >= 0.5


def test_issue_target_an_induction_head_on_common_words_repeated_twice():
    """Reached by the CPU fine-tunes (the GPU pretraining alone: 0.63)."""
    assert best_induction() >= 0.7


def test_issue_target_the_second_half_is_predicted():
    """Reached by the second CPU fine-tune (the GPU pretraining alone: 46 %; the first fine-tune: 64 %)."""
    assert second_half_hits() >= 0.7
