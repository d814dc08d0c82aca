"""Captures at the widths of real models (issue 48 item 2), so the models lane sees what a width-32
tiny model cannot (the readers' old width limit refused every real model past 512 tokens):

- GPT-2 small's attention: d_model 768, 12 heads x 64, 2 layers, random weights, 1,024 tokens;
- a Llama-shaped layer: d_model 2,048, 16 heads x 128, 4 K/V heads, 1 layer, 2,048 tokens.

Each is captured once (its MLP kept narrow: the attention is what is captured), then re-opened by
every reader, in process: `heads`, `heads --query`, `heads --rollout --query`, `report
--layer/--head`, and one frame of the token view. A word-level tokenizer trained here on the test
corpus makes the text exactly T tokens (no hub)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.heads.door import open_heads
from tests.capture.tiny_models import CORPUS, require_models

SHAPES = {
    # name: (family, config, T)
    "gpt2-small": ("gpt2", dict(n_layer=2, n_head=12, n_embd=768, n_inner=256, n_positions=1024), 1024),
    "llama-2048": (
        "llama",
        dict(
            num_hidden_layers=1,
            num_attention_heads=16,
            num_key_value_heads=4,
            hidden_size=2048,
            intermediate_size=256,
            max_position_embeddings=2048,
        ),
        2048,
    ),
}


def word_tokenizer():
    """A word-level tokenizer trained on CORPUS: one token per space-separated word."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.train_from_iterator(CORPUS, trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")


def _text(T: int) -> str:
    words = sorted({w for line in CORPUS for w in line.split()})
    return " ".join(np.random.default_rng(T).choice(words, T).tolist())


@pytest.fixture(scope="module", params=sorted(SHAPES))
def captured(request, tmp_path_factory):
    """(the file, T, its config) of one shape, captured once for the readers below."""
    require_models()
    import torch
    import transformers as tf

    family, over, T = SHAPES[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    tok = word_tokenizer()
    torch.manual_seed(0)
    config = (tf.GPT2Config if family == "gpt2" else tf.LlamaConfig)(vocab_size=len(tok), **over)
    tf.AutoModel.from_config(config).eval().save_pretrained(folder / "model")
    tok.save_pretrained(folder / "model")
    out = folder / f"{request.param}.safetensors"
    assert main(["capture", str(folder / "model"), "--file", _write(folder, _text(T)), "--out", str(out)]) == 0
    return str(out), T, over


def _write(folder, text: str) -> str:
    (folder / "text.txt").write_text(text)
    return str(folder / "text.txt")


def test_the_file_holds_the_real_shape(captured):
    path, T, over = captured
    src = open_heads(path)
    H = over.get("n_head") or over["num_attention_heads"]
    d_model = over.get("n_embd") or over["hidden_size"]
    assert (src.T, src.n_heads, src.d_k) == (T, H, d_model // H)
    assert src.n_kv_heads == over.get("num_key_value_heads", H) and src.shapes["W_O"][1:] == (d_model, d_model)
    assert src.provenance["max_abs_dA"] <= src.provenance["allowed_dA_at_worst"]


def test_heads_and_report_read_it(captured, capsys):
    path, T, _ = captured
    capsys.readouterr()
    assert main(["heads", path, "--layer", "0"]) == 0
    out = capsys.readouterr().out
    assert f"T = {T} query tokens" in out and "checked against the model: max |ΔA|" in out
    assert main(["report", "--scenario", path, "--layer", "0", "--head", "3"]) == 0
    assert "Summary" in capsys.readouterr().out  # above 64 tokens the report summarises


def test_heads_query_and_rollout_query_read_it(captured, capsys):
    path, T, _ = captured
    capsys.readouterr()
    assert main(["heads", path, "--query", str(T), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["heads"]
    assert rows and all(r["query"] for r in rows)
    assert main(["heads", path, "--rollout", "--query", f"1,{T}"]) == 0
    assert capsys.readouterr().out.strip()


async def test_the_token_view_draws_a_frame_of_it(captured, settle):
    from attn_tui.tui.app import AttentionApp
    from attn_tui.tui.heads_nav import open_ref
    from attn_tui.tui.screens.tokens import TokensScreen
    from attn_tui.tui.widgets.token_text import TokenText

    path, T, _ = captured
    s, ref = open_ref(path)
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TokensScreen)
        assert len(app.screen.query_one(TokenText).texts) == T
