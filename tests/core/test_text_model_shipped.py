"""The shipped text model's files (attn_tui/core/models/): small enough to ship in the wheel, the
tokenizer the one its weights were trained with, and the metadata naming the three stages of how they
were made (docs/TEXT_MODEL.md, "The recipe"): the GPU pretraining and the two CPU fine-tunes."""

from __future__ import annotations

import pytest

from attn_tui.core.models.text import TOKENIZER, WEIGHTS
from tests.core.textmodels import shipped

pytestmark = pytest.mark.skipif(not shipped(), reason="the text model's files are not shipped yet")

SHIPPED_FILES_BUDGET = 10 * 10**6  # bytes of weights + tokenizer the package carries (issue 49)


def metadata() -> dict:
    from safetensors import safe_open

    with safe_open(str(WEIGHTS), "np") as f:
        return dict(f.metadata())


def test_weights_and_tokenizer_fit_the_budget():
    assert WEIGHTS.stat().st_size + TOKENIZER.stat().st_size <= SHIPPED_FILES_BUDGET


def test_the_metadata_names_the_pretraining_and_both_fine_tunes():
    meta = metadata()
    assert "H200" in meta["pretrain"] and "12000 steps" in meta["pretrain"]
    # stage 2, the weights stage 3 started from
    assert meta["init_steps"] == "918" and meta["earlier_finetunes"].startswith("918 steps")
    assert "--repeat-alpha 0.5" in meta["earlier_finetunes"]
    # stage 3, this file's own
    assert f"{meta['steps']} steps" in meta["finetune"] and f"{meta['train_seconds']} s" in meta["finetune"]
    for flag in ("--init-shared 0.15", "--frac-random-repeat 0.3", "--repeat-alpha 0.75"):
        assert flag in meta["finetune"] and flag in meta["recipe"], flag
