"""The tour's page from the lesson's single head to a model of English (issue 49): text-demo on its
sentence, its strongest previous-token and induction heads, and how often its top prediction is the
token an earlier copy says comes next; every number computed from the shipped model when the page
is drawn. The page's try-it opens the token view on that sentence, on the induction head."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ...core.attention import softmax
from ...core.heads import layer_readings, open_heads, sort_readings
from ...core.models import MODELS
from ...core.numfmt import fit_number

if TYPE_CHECKING:
    from ...core.heads.readings import Readings
    from ...core.heads.source import HeadSource
    from ...core.models.run import Run


@dataclass(frozen=True)
class TextTour:
    """What the page says: the two heads' readings, the copyable positions (0-based query t whose next
    token followed an earlier occurrence of token t), those where the top prediction is that token, and
    the row the try-it opens on (the last such position)."""

    src: HeadSource  # its run: the logits
    prev: Readings
    induction: Readings
    copyable: tuple
    hits: tuple
    row: int


def copyable(ids) -> tuple:
    """Positions t (0-based) whose next token is one that followed an earlier occurrence of token t."""
    ids = [int(i) for i in ids]
    return tuple(t for t in range(len(ids) - 1) if any(ids[j] == ids[t] and ids[j + 1] == ids[t + 1] for j in range(t)))


def measured(text: str | None = None) -> TextTour:
    """text-demo's heads and predictions on ``text`` (its own sentence when None)."""
    src = open_heads("text-demo", text)
    readings = [r for layer in range(src.n_layers) for r in layer_readings(src, layer)]
    prev = sort_readings(readings, "prev_token")[0]
    ind = sort_readings(readings, "induction")[0]
    run = cast("Run", src.run)  # a built-in's forward (HeadSource.run)
    ids, top = run.ids, run.logits.argmax(axis=-1)
    where = copyable(ids)
    hits = tuple(t for t in where if top[t] == ids[t + 1])
    return TextTour(src, prev, ind, where, hits, (hits or where or (src.T - 1,))[-1])


def text_page() -> str:
    entry = MODELS["text-demo"]
    model, m = entry.model(), measured()
    assert m.prev.prev_token is not None and m.induction.induction is not None  # the strongest heads: measured
    t, labels = m.row, m.src.tokens
    p = softmax(cast("Run", m.src.run).logits[t])  # a built-in's forward (HeadSource.run)
    guess = int(np.argmax(p))
    said = model.tokenizer.decode([guess])
    return (
        "From letters to English. induction-demo learnt on letters that repeat; text-demo is the same kind of "
        f"model, {model.n_layers} attention-only layers of {model.n_heads} heads (d_model = {model.embed.shape[1]}), "
        "trained to predict the next token of English prose (docs/TEXT_MODEL.md: the text, and how much "
        f"repeated text was mixed in). Its tokens are pieces of words (a byte-level BPE of "
        f"{model.embed.shape[0]:,} tokens), and its heads are measured the way induction-demo's are.\n\n"
        f'On "{entry.default_text}" ({m.src.T} tokens):\n'
        f"• layer {m.prev.layer}, head {m.prev.head}, its strongest previous-token head: mean A[t, t−1] = "
        f"{fit_number(m.prev.prev_token, 4)};\n"
        f"• layer {m.induction.layer}, head {m.induction.head}, its strongest induction head: on a token seen "
        f"before it puts {fit_number(m.induction.induction, 4)} of its weight on the tokens that followed its earlier "
        "occurrences;\n"
        f"• on the repeat: at the {len(m.copyable)} positions whose next token followed an earlier "
        f"copy of their own, its top prediction is that token at {len(m.hits)}. After t{t + 1} {labels[t]!r} it "
        f"predicts {said!r} (p = {fit_number(float(p[guess]), 4)}).\n\n"
        f"Try it opens the token view on that sentence: layer {m.induction.layer}, head {m.induction.head}, query "
        f"t{t + 1}, each token shaded by the weight the query gives it. i types a sentence of your own (up to "
        f"{model.n_ctx:,} tokens): repeat a phrase and see whether the induction head looks one token past the "
        "earlier copy. M shows every head at once, > and < step through them, R follows the whole model (rollout)."
    )
