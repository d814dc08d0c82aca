"""The shipped text model's files (attn_tui/core/models/): small enough to ship in the wheel, the
tokenizer the one its weights were trained with, and the metadata naming both stages of how they were
made (docs/TEXT_MODEL.md, "The recipe"): the GPU pretraining and the CPU fine-tune."""

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


def test_the_metadata_names_the_pretraining_and_the_fine_tune():
    meta = metadata()
    assert meta["init_steps"] == "12000" and "H200" in meta["pretrain"] and "12000 steps" in meta["pretrain"]
    assert f"{meta['steps']} steps" in meta["finetune"] and f"{meta['train_seconds']} s" in meta["finetune"]
    assert "--repeat-alpha 0.5" in meta["finetune"] and "--repeat-alpha 0.5" in meta["recipe"]
