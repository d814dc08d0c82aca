"""Every family's capture against the model's own eager attention, head by head.

Each test saves a tiny random model (from_config, its init widened so heads are sharp, not
uniform) and a tokenizer trained here, runs `attn-tui capture` on it, opens the file as any
reader does, recomputes every head's A with attn-tui's core and compares it with A from a second
load of the model with attn_implementation="eager" and output_attentions=True (no capture code
involved).

Tolerance (float32 models): each weight is a float32 softmax over T' scores, each score a float32
dot product of d_k terms, then scaled: rounding moves a score by at most ~(d_k + 2)·eps·B, B =
scale·max‖q‖·max‖k‖, so a weight by at most ~2(d_k + 2)·eps·B, and the softmax's sum adds ~(T' +
4)·eps. The test allows 4·(d_k + T' + 6)·eps·max(B, 1): twice the sum of those terms.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.heads.capture_check import stored_check
from attn_tui.core.heads.combine import combine
from attn_tui.core.heads.door import open_heads
from tests.capture.tiny_models import require_models

TEXT = "the cat sat on the mat. The cat sat on the log,\nthe dog sat."
EPS32 = float(np.finfo(np.float32).eps)
FAMILIES = {  # family -> (K/V heads, the mask of every layer as HeadSource.masks holds it)
    "gpt2": (4, ("causal", None)),
    "llama": (2, ("causal", None)),
    "mistral": (2, ("window", 4)),
    "qwen2": (1, ("causal", None)),
    "bert": (4, ("none", None)),
}


def eager_attentions(folder, text):
    """(token ids, [L x (H, T, T')] A) of the model in ``folder`` run eagerly with output_attentions."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True)
    return enc["input_ids"][0].tolist(), [a[0].double().numpy() for a in out.attentions], model, tok


def captured(tiny_folders, tmp_path, family, *extra):
    folder = tiny_folders(family, initializer_range=0.3)
    out = tmp_path / f"{family}.safetensors"
    assert main(["capture", str(folder), TEXT, "--out", str(out), *extra]) == 0
    return folder, out


@pytest.mark.parametrize("keep_A", [False, True])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_head_is_the_models(tiny_folders, tmp_path, family, keep_A, capsys):
    """With and without --keep-A: the heads recomputed from the file are the model's; the model's own A
    is in the file only when kept, and then it is the eager model's."""
    require_models()
    folder, out = captured(tiny_folders, tmp_path, family, *(["--keep-A"] if keep_A else []))
    first, line = capsys.readouterr().out.splitlines()[:2]
    import torch

    said = "cuda (--device auto: torch sees CUDA" if torch.cuda.is_available() else "cpu (--device auto: torch sees no"
    assert first.startswith(f"capturing on {said}")  # --device auto, named in the first line
    assert line.startswith("checked against the model: max |ΔA| ") and "over 2 × 4 heads" in line
    ids, own, model, tok = eager_attentions(folder, TEXT)
    src = open_heads(str(out))
    assert (src.n_layers, src.n_heads, src.n_kv_heads, src.T) == (2, 4, FAMILIES[family][0], len(ids))
    assert src.masks == (FAMILIES[family][1],) * 2
    assert src.scales == pytest.approx((8**-0.5,) * 2, rel=1e-15)  # head_dim 8: 1/sqrt(8), as the model set it
    assert src.title == f"{str(folder)[:80]} · float32" and src.provenance["model"] == str(folder)
    assert line.startswith(stored_check(src).words() + " (allowed ")  # the file keeps what the command printed
    assert src.provenance["token_ids"] == ids
    assert src.has("A") is keep_A
    worst = 0.0
    for layer in range(2):
        for head in range(4):
            Q, K, _ = src.qkv(layer, head)
            A, _ = src.weights_block(layer, head)(0, src.T)  # the core's softmax(scale QK^T + M), float64
            B = src.scales[layer] * np.linalg.norm(Q, axis=1).max() * np.linalg.norm(K, axis=1).max()
            tol = 4 * (src.d_k + src.T_k + 6) * EPS32 * max(B, 1.0)
            diff = np.abs(A - own[layer][head]).max()
            assert diff <= tol, (layer, head, diff, tol)
            if keep_A:  # the model's own weights, as its eager function returned them
                np.testing.assert_allclose(src.read("A", layer, head), own[layer][head], rtol=0, atol=tol)
            worst = max(worst, diff)
            assert np.abs(own[layer][head] - own[layer][head].mean()).max() > 0.05  # a sharp head, not uniform
    print(f"{family}: max |dA| {worst:.2g}")


@pytest.mark.parametrize("family", ["gpt2", "llama", "bert"])
def test_w_o_is_the_layers_output_projection(tiny_folders, tmp_path, family):
    """W_O (H·d_v, d_model) is the projection applied to concat(O_h): o_proj / c_proj / BERT's output.dense."""
    require_models()
    import torch

    folder, out = captured(tiny_folders, tmp_path, family)
    _, _, model, _ = eager_attentions(folder, TEXT)
    src = open_heads(str(out))
    for layer in range(2):
        W_O = src.read("W_O", layer)
        x = torch.randn(3, 32, dtype=torch.float64)
        if family == "gpt2":
            proj = model.h[layer].attn.c_proj
        elif family == "bert":
            proj = model.encoder.layer[layer].attention.output.dense
        else:
            proj = model.layers[layer].self_attn.o_proj
        want = (proj.to(torch.float64)(x) - (proj.bias if proj.bias is not None else 0)).detach().numpy()
        np.testing.assert_allclose(x.numpy() @ W_O, want, rtol=0, atol=1e-12)
        assert combine(src, layer).holds


def test_labels_show_spaces_and_the_metadata_keeps_the_markers(tiny_folders, tmp_path):
    require_models()
    _, out = captured(tiny_folders, tmp_path, "gpt2")
    src = open_heads(str(out))
    assert any(r.startswith("Ġ") for r in src.raw_tokens)
    for raw, label in zip(src.raw_tokens, src.tokens):
        if raw.startswith("Ġ") and raw.strip("Ġ"):
            assert label == " " + raw[1:]
        if raw == "Ċ":
            assert label == "↵"
    assert not any("Ġ" in t for t in src.tokens)


def test_layers_picks_layers_and_keeps_their_numbers(tiny_folders, tmp_path, capsys):
    require_models()
    capsys.readouterr()
    _, out = captured(tiny_folders, tmp_path, "llama", "--layers", "1")
    src = open_heads(str(out))
    assert src.n_layers == 1 and src.provenance["layers"] == [1]
    check = capsys.readouterr().out.splitlines()[1]  # the check line says how the file counts them
    assert check.startswith("checked against the model") and check.endswith("0 is the model's 1"), check


U = {"float16": 2.0**-11, "bfloat16": 2.0**-8}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("family", ["gpt2", "llama", "bert"])
def test_half_precision_heads_are_the_models(tiny_folders, tmp_path, family, dtype, capsys):
    """float16 / bfloat16: the model's scores are rounded to the dtype (its unit roundoff u) after a
    float32-accumulated product, so a score is off by up to 2u·B + d_k·eps32·B (B = scale·max‖q‖·max‖k‖),
    a weight by up to expm1(2 × that); the softmax's float32 sum and the final rounding of A to the
    dtype add (T' + 4)·eps32 + u. The test allows that bound against a separate eager run in the dtype."""
    require_models()
    import torch
    from transformers import AutoModel, AutoTokenizer

    folder, out = captured(tiny_folders, tmp_path, family, "--dtype", dtype)
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager", dtype=getattr(torch, dtype)).eval()
    with torch.no_grad():
        own = [
            a[0].double().numpy() for a in model(**tok(TEXT, return_tensors="pt"), output_attentions=True).attentions
        ]
    src = open_heads(str(out))
    assert src.provenance["dtype"] == dtype and dtype in src.title
    assert src.dtype == ("float16" if dtype == "float16" else "float32")  # bfloat16 kept exactly as float32
    u = U[dtype]
    for layer in range(2):
        for head in range(4):
            Q, K, _ = src.qkv(layer, head)
            A, _ = src.weights_block(layer, head)(0, src.T)
            B = src.scales[layer] * np.linalg.norm(Q, axis=1).max() * np.linalg.norm(K, axis=1).max()
            tol = np.expm1(2 * (2 * u + src.d_k * EPS32) * B) + (src.T_k + 4) * EPS32 + u
            assert np.abs(A - own[layer][head]).max() <= tol, (layer, head)


@pytest.mark.parametrize("family", ["bert", "llama"])
def test_a_padding_mask_is_kept_as_the_explicit_additive_mask(tiny_folders, tmp_path, family):
    """With a padded token (attention_mask 0) the model passes a mask that is neither causal nor none:
    the file keeps it as M (mask "additive"), and every head still matches the model's eager A."""
    require_models()
    import torch
    from transformers import AutoModel, AutoTokenizer

    from attn_tui.capture import run
    from attn_tui.capture.load import load_model

    folder = tiny_folders(family, initializer_range=0.3)
    tok = AutoTokenizer.from_pretrained(folder)
    enc = tok(TEXT, return_tensors="pt")
    enc["attention_mask"][0, 2] = 0  # the third token is padding
    model = load_model(str(folder), AutoModel.from_pretrained(folder).config)
    out = tmp_path / "pad.safetensors"
    out.touch()
    c = run.capture(model, tok, enc, out)
    assert c.settings["mask"] == ["additive", "additive"]
    assert c.result.holds
    run.finish(c, title="pad", source="", provenance={})
    src = open_heads(str(out))
    eager = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        own = eager(**enc, output_attentions=True).attentions
    blocked = src.read("M", 0) <= -1e4
    assert blocked[:, 2].all()  # nobody sees the padding
    for layer in range(2):
        for head in range(4):
            A, _ = src.weights_block(layer, head)(0, src.T)
            assert A[:, 2].max() == 0.0
            assert np.abs(A - own[layer][0, head].double().numpy()).max() < 1e-5  # float32: the bound above, ~1e-6 here


def test_per_layer_scale_and_per_layer_windows(tiny_folders, tmp_path):
    """GPT-2 scaled by 1/(layer + 1) (scale_attn_by_inverse_layer_idx), and Qwen2 with a sliding
    layer before a full one (layer_types): each layer keeps its own scale and mask, and every head
    still matches the eager model."""
    require_models()
    gpt2 = tiny_folders("gpt2", initializer_range=0.3, scale_attn_by_inverse_layer_idx=True)
    out = tmp_path / "g.safetensors"
    assert main(["capture", str(gpt2), TEXT, "--out", str(out)]) == 0
    src = open_heads(str(out))
    assert src.scales == pytest.approx((8**-0.5, 8**-0.5 / 2), rel=1e-15)
    qwen = tiny_folders(
        "qwen2",
        initializer_range=0.3,
        use_sliding_window=True,
        sliding_window=3,
        layer_types=["sliding_attention", "full_attention"],
    )
    out = tmp_path / "q.safetensors"
    assert main(["capture", str(qwen), TEXT, "--out", str(out)]) == 0
    src = open_heads(str(out))
    assert src.masks == (("window", 3), ("causal", None))
    for folder, path in ((gpt2, tmp_path / "g.safetensors"), (qwen, out)):
        _, own, _, _ = eager_attentions(folder, TEXT)
        src = open_heads(str(path))
        for layer in range(2):
            for head in range(4):
                A, _ = src.weights_block(layer, head)(0, src.T)
                assert np.abs(A - own[layer][head]).max() < 1e-5  # float32 (the bound of the first test: ~2e-5 here)


def test_the_file_gets_a_new_files_usual_mode(tiny_folders, tmp_path):
    require_models()
    import os

    _, out = captured(tiny_folders, tmp_path, "gpt2")
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left beside it
