"""A captured model's own prediction (capture/top.py, core/heads/captured_top.py), checked against the model
itself: a tiny GPT-2 with its LM head (GPT2LMHeadModel, random weights) captured; the stored top 10 and their
probabilities against torch's softmax of the model's own logits; each head's direct part of the top logit
against the model's attention output split by head (hooks on c_proj and ln_f), and the heads' parts plus the
rest, made here of the embedding, the MLPs and the biases through the same held norm, against the logit. A
BERT (no LM head) and a GPT-2 base model (its weights hold no LM head) capture with no prediction, said."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.cli import main
from attn_tui.core.heads.captured_top import NO_HEAD, WHY_NO_PARTS, WHY_NONE, predict_source, why_none
from attn_tui.core.heads.multihead_io import open_file
from attn_tui.report.heads_text import heads_json
from tests.capture.tiny_models import require_models

TEXT = "the cat sat on the mat. The cat sat on the"


def _capture(folder, tmp_path, name="o.safetensors"):
    out = tmp_path / name
    assert main(["capture", str(folder), TEXT, "--out", str(out), "--device", "cpu"]) == 0
    return out


def _own(folder):
    """The model's logits (T, V) and, at every position, each part of its final residual stream:
    each head's write, the embedding, each layer's attention bias and MLP; ln_f's input; W_U."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    ids = AutoTokenizer.from_pretrained(folder)(TEXT, return_tensors="pt")["input_ids"]
    got, hooks = {}, []
    for ly, block in enumerate(model.transformer.h):
        hooks.append(
            block.attn.c_proj.register_forward_pre_hook(lambda m, a, ly=ly: got.__setitem__(("z", ly), a[0][0]))
        )
        hooks.append(block.mlp.register_forward_hook(lambda m, a, o, ly=ly: got.__setitem__(("mlp", ly), o[0])))
    hooks.append(model.transformer.ln_f.register_forward_hook(lambda m, a, o: got.__setitem__("x", a[0][0])))
    with torch.no_grad():
        logits = model(ids).logits[0].double()
    for h in hooks:
        h.remove()
    H = model.config.n_head
    heads, rest = [], [model.transformer.wte(ids)[0] + model.transformer.wpe(torch.arange(ids.shape[1]))]
    for ly, block in enumerate(model.transformer.h):
        z, W = got["z", ly].double(), block.attn.c_proj.weight.double()  # Conv1D: z @ W + b
        d_v = z.shape[1] // H
        heads.append([z[:, h * d_v : (h + 1) * d_v] @ W[h * d_v : (h + 1) * d_v] for h in range(H)])
        rest += [block.attn.c_proj.bias.double().expand(z.shape[0], -1), got["mlp", ly].double()]
    return model, logits, heads, [r.double() for r in rest], got["x"].double()


@pytest.mark.parametrize("chunk", [None, 3], ids=["one chunk", "3 positions a chunk"])
def test_the_stored_top_10_is_the_models_own(tiny_folders, tmp_path, monkeypatch, chunk):
    """Every stored token has the model's probability (softmax of its own logits) and no other token is
    likelier than the tenth; the float32 logits and probabilities to float32's rounding; the same when
    the positions go through the output layer 3 at a time (CHUNK_BYTES: never T x V at once)."""
    require_models()
    import torch

    from attn_tui.capture import top

    if chunk:
        monkeypatch.setattr(top, "CHUNK_BYTES", 4 * 300 * chunk)  # the tiny vocabulary: <= 300 tokens

    folder = tiny_folders("gpt2", lm=True)
    src = open_file(_capture(folder, tmp_path))
    _, logits, *_ = _own(folder)
    p = torch.softmax(logits.float(), dim=-1).double().numpy()
    vocab = np.array(src.provenance["prediction"]["vocab"])
    ids = vocab[src.top.ids]  # (T, 10) the model's token ids
    T = src.T
    assert src.top.ids.shape == (T, 10) and logits.shape[0] == T
    eps = float(np.finfo(np.float32).eps)
    rows = np.arange(T)[:, None]
    np.testing.assert_allclose(src.top.p, p[rows, ids], rtol=0, atol=64 * eps * p.max())
    np.testing.assert_allclose(
        src.top.logit, logits.numpy()[rows, ids], rtol=0, atol=64 * eps * float(logits.abs().max())
    )
    eleventh = np.sort(p, axis=1)[:, -11]
    assert (p[rows, ids].min(axis=1) >= eleventh - 64 * eps * p.max()).all()
    tok = torch.tensor(ids[:, 0])
    assert (torch.softmax(logits, -1)[torch.arange(T), tok] >= torch.softmax(logits, -1).max(-1).values - 1e-6).all()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    from attn_tui.capture.labels import labeller

    label = labeller(tokenizer, src.provenance["byte_level"])  # the text's rule (test_capture_byte_labels.py)
    assert [src.top.labels[i] for i in src.top.ids[3]] == [label(int(v)) for v in ids[3]]


@pytest.mark.parametrize("t", [2, 9])
def test_each_heads_part_and_the_rest_against_the_logit(tiny_folders, tmp_path, capsys, t):
    """The heads' direct parts read from the file against the model's own per-head writes through ln_f held
    at position t; then the heads' parts plus the rest made here (embedding, c_proj biases, MLPs, ln_f's
    bias) equal the model's logit of the top token."""
    require_models()
    folder = tiny_folders("gpt2", lm=True)
    src = open_file(_capture(folder, tmp_path))
    said = "stored the model's own top 10 next tokens at each position, and what each head's direct part of "
    assert f"{said}the top one needs: attn-tui heads {tmp_path / 'o.safetensors'} --query t" in capsys.readouterr().out
    model, logits, heads, rest, x = _own(folder)
    pred = predict_source(src, t)
    assert src.top.readout and len(pred.heads) == len(heads) * len(heads[0])
    tok = int(np.array(src.provenance["prediction"]["vocab"])[src.top.ids[t, 0]])
    ln = model.transformer.ln_f
    xc = x[t] - x[t].mean()
    inv = 1 / float((xc.pow(2).mean() + ln.eps).sqrt())
    u = (model.lm_head.weight[tok].double() * ln.weight.double() * inv).detach()

    def share(part):  # a part of the residual at t through the held norm and the unembedding
        v = part[t]
        return float(((v - v.mean()) @ u).detach())

    logit = float(logits[t, tok])
    scale = 1 + abs(logit)
    tol = 256 * float(np.finfo(np.float32).eps) * scale  # float32 model, its arrays stored in float32
    own = {(ly, h): share(o) for ly, layer in enumerate(heads) for h, o in enumerate(layer)}
    for part in pred.heads:
        assert part.logit == pytest.approx(own[part.layer, part.head], abs=tol)
    others = sum(share(r.detach()) for r in rest) + float(
        (ln.bias.double() @ model.lm_head.weight[tok].double()).detach()
    )
    assert sum(x.logit for x in pred.heads) + others == pytest.approx(logit, abs=tol * len(own))
    assert pred.direct == pytest.approx(others, abs=tol * len(own))  # the file's rest is what is left: the same
    assert pred.logit == pytest.approx(logit, abs=tol)


@pytest.mark.parametrize("family, lm", [("bert", False), ("gpt2", False)])
def test_a_model_without_an_lm_head_has_no_prediction_and_says_so(tiny_folders, tmp_path, capsys, family, lm):
    require_models()
    src = open_file(_capture(tiny_folders(family, lm=lm), tmp_path))
    assert NO_HEAD in capsys.readouterr().out.splitlines()  # the command said it as it wrote the file
    assert src.top is None and not src.has("top_ids")
    assert why_none(src) == NO_HEAD
    d = json.loads(heads_json(src, query=1))
    assert d["prediction"] is None and d["prediction_none"] == NO_HEAD
    assert main(["heads", str(tmp_path / "o.safetensors"), "--query", "2"]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == NO_HEAD


def test_a_llama_with_an_rms_norm_gives_the_heads_parts(tiny_folders, tmp_path):
    """Llama's final norm is an RMS norm (no centring, no bias): the readout is held as for ln_f, uncentred."""
    require_models()
    src = open_file(_capture(tiny_folders("llama", lm=True), tmp_path))
    assert src.top.readout and not src.top.centred and src.provenance["prediction"]["by_head"] is None
    p = predict_source(src, 4)
    assert abs(sum(x.logit for x in p.parts) - p.logit) < 1e-9 * (1 + abs(p.logit))


def test_some_layers_give_the_top_without_the_heads_parts(tiny_folders, tmp_path, capsys):
    require_models()
    out = tmp_path / "o.safetensors"
    assert main(["capture", str(tiny_folders("gpt2", lm=True)), TEXT, "--out", str(out), "--layers", "1"]) == 0
    said = f"stored the model's own top 10 next tokens at each position, ({WHY_NO_PARTS['layers']}): "
    assert said + f"attn-tui heads {out} --query t" in capsys.readouterr().out.splitlines()
    src = open_file(out)
    assert src.top is not None and not src.top.readout and not src.has("top_readout")
    p = predict_source(src, 3)
    assert p.parts == () and p.legend == WHY_NO_PARTS["layers"]


def test_logits_scaled_after_the_output_layer_store_no_prediction(tiny_folders, tmp_path, monkeypatch):
    """A model whose logits are not its output layer's (here doubled after it, as a scale or a soft cap
    would change them): the check on the last position finds it, and no prediction is stored."""
    require_models()
    import functools

    import transformers

    cls = transformers.GPT2LMHeadModel
    forward = cls.forward

    @functools.wraps(forward)
    def doubled(self, *a, **kw):
        out = forward(self, *a, **kw)
        out.logits = out.logits * 2
        return out

    monkeypatch.setattr(cls, "forward", doubled)
    src = open_file(_capture(tiny_folders("gpt2", lm=True), tmp_path))
    assert src.top is None and why_none(src) == WHY_NONE["logits"]
    assert src.provenance["prediction"] == {"none": "logits"}


def test_a_final_norm_of_another_form_gives_no_heads_parts(tiny_folders, tmp_path, monkeypatch):
    """A norm whose output is not (x − mean x) / σ · w + b (here x̂ · (1 + w) + b, Gemma's form): the
    check of the recomputed norm against the model's own output finds it, and no readout is stored."""
    require_models()
    import torch
    import torch.nn.functional as F

    def one_plus_w(self, x):
        return F.layer_norm(x, self.normalized_shape, 1 + self.weight, self.bias, self.eps)

    monkeypatch.setattr(torch.nn.LayerNorm, "forward", one_plus_w)
    src = open_file(_capture(tiny_folders("gpt2", lm=True), tmp_path))
    assert src.top is not None and not src.top.readout and src.provenance["prediction"]["by_head"] == "norm"
    assert predict_source(src, 2).legend == WHY_NO_PARTS["norm"]
