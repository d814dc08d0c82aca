"""The text model's NumPy forward (core/models/text.py) on random weights of the shipped format and a
tiny BPE: against a loop-by-loop forward, its direct logit attribution exact, its tokenizer's labels,
the registry's refusals in one line about the text (the torch oracle: test_text_model_torch.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.heads.demo import model_source
from attn_tui.core.models import MODELS, InputError, ModelEntry
from attn_tui.core.models.text import forward, rope
from attn_tui.core.token_bytes import PARTIAL
from tests.core.textmodels import random_model

EPS = np.finfo(np.float64).eps


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return random_model(tmp_path_factory.mktemp("text"))


def entry_of(model, n_ctx=None) -> ModelEntry:
    from dataclasses import replace

    m = model if n_ctx is None else replace(model, n_ctx=n_ctx)
    return ModelEntry("text-demo", "test", "text", "The cat sat.", "random weights", load=lambda: m)


def naive_logits(m, ids):
    """The contract written out with loops and the math module (text_model_spec): logits (T, V)."""
    T, d, dh = len(ids), m.embed.shape[1], m.d_k

    def ln(row, w):
        mu = sum(row) / d
        var = sum((v - mu) ** 2 for v in row) / d
        return [(v - mu) / math.sqrt(var + m.eps) * w[j] for j, v in enumerate(row)]

    def rot(vec, pos):
        half, out = dh // 2, [0.0] * dh
        for i in range(half):
            ang = pos * m.rope_base ** (-2 * i / dh)
            c, s = math.cos(ang), math.sin(ang)
            out[i] = vec[i] * c - vec[i + half] * s
            out[i + half] = vec[i + half] * c + vec[i] * s
        return out

    x = [list(m.embed[i]) for i in ids]
    for layer in range(m.n_layers):
        h = [ln(row, m.ln[layer]) for row in x]
        new = [row[:] for row in x]
        for j in range(m.n_heads):
            proj = lambda W, t, h=h: [sum(h[t][a] * W[a, k] for a in range(d)) for k in range(dh)]  # noqa: E731
            q = [rot(proj(m.W_Q[layer, j], t), t) for t in range(T)]
            k = [rot(proj(m.W_K[layer, j], t), t) for t in range(T)]
            v = [proj(m.W_V[layer, j], t) for t in range(T)]
            for t in range(T):
                s = [sum(a * b for a, b in zip(q[t], k[i])) / math.sqrt(dh) for i in range(t + 1)]
                e = [math.exp(x_ - max(s)) for x_ in s]
                o = [sum(e[i] / sum(e) * v[i][c] for i in range(t + 1)) for c in range(dh)]
                for a in range(d):
                    new[t][a] += sum(o[c] * m.W_O[layer, j, c, a] for c in range(dh))
        x = new
    final = [ln(row, m.ln_final) for row in x]
    return np.array([[sum(r[a] * m.unembed[a, c] for a in range(d)) for c in range(m.unembed.shape[1])] for r in final])


def test_numpy_forward_equals_the_loops(model):
    ids = model.tokenizer.encode("The cat sat on the mat. The cat").ids
    want = naive_logits(model, ids)
    np.testing.assert_allclose(forward(model, ids).logits, want, rtol=0, atol=1e4 * EPS * np.abs(want).max())


def test_rope_turns_each_pair_by_its_angle_and_keeps_the_norm(model):
    x = np.random.default_rng(1).standard_normal((2, 5, 8))
    r = rope(x, 10000.0)
    np.testing.assert_allclose(np.linalg.norm(r, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e3 * EPS)
    np.testing.assert_array_equal(r[:, 0], x[:, 0])  # position 0: no turn
    # a score depends on the positions' difference only: q at t, k at s as q at t+1, k at s+1
    q, k = x[0, :1].repeat(5, 0), x[1, :1].repeat(5, 0)
    rq, rk = rope(q[None], 10000.0)[0], rope(k[None], 10000.0)[0]
    np.testing.assert_allclose(rq[3] @ rk[1], rq[4] @ rk[2], rtol=0, atol=1e3 * EPS)


def test_the_heads_parts_and_the_embedding_sum_to_the_logits(model):
    """Direct logit attribution is exact (attention-only, no biases, the final LN's 1/σ held)."""
    run = forward(model, model.tokenizer.encode("She walked to the station in the rain.").ids)
    parts = model.part_logits(run.resid[0], run.final_scale) + sum(
        model.part_logits(run.head_out[ly, j], run.final_scale)
        for ly in range(model.n_layers)
        for j in range(model.n_heads)
    )
    np.testing.assert_allclose(parts, run.logits, rtol=0, atol=1e4 * EPS * np.abs(run.logits).max())
    np.testing.assert_allclose(run.resid[-1], run.resid[0] + run.head_out.sum(axis=(0, 1)), atol=1e4 * EPS * 10)
    np.testing.assert_allclose(run.A.sum(-1), 1.0, rtol=0, atol=1e2 * EPS)
    assert np.all(np.triu(run.A, k=1) == 0)


def test_labels_keep_the_spaces_and_show_whitespace(model):
    enc = model.tokenizer.encode("The cat\n\nsat  café")
    drawn = "".join(enc.drawn).replace("↵", "\n").replace("␣", " ").replace(PARTIAL, "")
    assert drawn == "The cat\n\nsat  café" and "\ufffd" not in "".join(enc.labels)  # é split: <C3> <A9>
    assert any(lab.startswith(" ") for lab in enc.labels)  # a token's own leading space
    assert all(lab.strip() for lab in enc.labels)  # a whitespace token as signs (␣ ↵), never blank
    assert any(r.startswith("Ġ") for r in enc.raw) and model.tokenizer.decode(enc.ids) == "The cat\n\nsat  café"


def test_the_source_holds_the_run_and_the_handle(model):
    src = model_source(entry_of(model), "The cat sat on the mat. The cat sat on the mat.")
    enc = model.tokenizer.encode(src.text)
    assert src.T == len(enc.ids) and src.ids == tuple(int(i) for i in enc.ids) and src.raw_tokens == enc.raw
    np.testing.assert_array_equal(src.qkv(1, 2)[0], src.run.Q[1, 2])
    assert src.model.name == "text-demo" and src.n_heads == model.n_heads


@pytest.mark.parametrize(
    ("text", "n_ctx", "words"),
    [("   \n", None, ["no text"]), ("The cat sat on the mat.", 3, ["tokens", "3 positions"])],
)
def test_a_text_the_model_cannot_read_is_one_line_about_the_text(model, text, n_ctx, words):
    with pytest.raises(InputError) as e:
        model_source(entry_of(model, n_ctx), text)
    msg = str(e.value)
    assert "\n" not in msg and "--" not in msg and all(w in msg for w in words), msg


def test_a_text_too_long_for_certain_is_refused_before_it_is_tokenized(model, monkeypatch):
    entry = entry_of(model, n_ctx=8)
    widest = model.tokenizer.max_token_bytes
    assert widest == max(len(model.tokenizer.decode([i]).encode()) for i in range(model.tokenizer.vocab_size))
    calls = []
    monkeypatch.setattr(type(model.tokenizer), "encode", lambda self, text: calls.append(text))
    with pytest.raises(InputError, match=f"no token is over {widest} bytes"):
        entry.encode("x" * (8 * widest + 1))
    assert calls == []


def test_the_registry_names_both_models():
    assert list(MODELS) == ["induction-demo", "text-demo"]
    assert MODELS["induction-demo"].field == "tokens" and MODELS["text-demo"].field == "text"
    with pytest.raises(InputError) as e:
        MODELS["induction-demo"].encode(" ".join("a" * 33))
    assert str(e.value) == "33 tokens; the model has 32 positions"


def test_the_demo_never_imports_tokenizers():
    """tokenizers loads with text-demo's tokenizer only: induction-demo and the heads' door run without it."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom attn_tui.core.heads import open_heads\nopen_heads('induction-demo', 'a b a b')\n"
        "print('tokenizers' in sys.modules)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "False"
