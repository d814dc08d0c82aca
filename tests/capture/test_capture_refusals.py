"""`attn-tui capture` refusals: one line on stderr, exit 2, no traceback, and no file left behind.
The check itself must refuse a capture whose heads are not the model's."""

from __future__ import annotations

import subprocess
import sys

import pytest

from attn_tui.cli import main
from tests.capture.tiny_models import require_models

TEXT = "the cat sat on the mat. The cat sat on the log."


def refused(capsys, argv, *needles):
    capsys.readouterr()  # what the fixtures printed (transformers' bars while saving the tiny models)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--dtype", "float64"], "--dtype: 'float64'; use float32, float16, bfloat16"),
        (["--device", "tpu"], "--device: 'tpu'; use auto, cpu, cuda"),
        (["--layers", "2"], "--layers: 2 is not a layer"),
        (["--layers", "-1"], "--layers: -1 is not a layer"),
        (["--layers", "1", "1"], "--layers: layer 1 is given twice"),
        (["--out", "x.npz"], "a capture is written as .safetensors"),
    ],
)
def test_bad_options(tiny_folders, tmp_path, capsys, monkeypatch, extra, needle):
    require_models()
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT, *extra], needle)
    assert leftovers(tmp_path) == []


def test_cuda_without_cuda_is_refused_and_with_it_captures(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    import torch

    monkeypatch.chdir(tmp_path)
    argv = ["capture", str(tiny_folders("gpt2")), TEXT, "--device", "cuda", "--out", "c.safetensors"]
    if torch.cuda.is_available():  # a machine with a GPU: the capture runs there and passes its check
        capsys.readouterr()
        assert main(argv) == 0, capsys.readouterr().err
        assert "checked against the model" in capsys.readouterr().out
    else:
        refused(capsys, argv, "--device cuda: torch sees no CUDA device here; use --device cpu")
        assert leftovers(tmp_path) == []


def test_remote_code_runs_only_when_asked(tiny_folders, tmp_path, monkeypatch):
    """trust_remote_code reaches from_pretrained as False unless --trust-remote-code is given."""
    require_models()
    from attn_tui.capture import load

    seen = []
    real = load.AutoConfig.from_pretrained

    def spy(*a, **k):
        seen.append(k["trust_remote_code"])
        return real(*a, **k)

    monkeypatch.setattr(load.AutoConfig, "from_pretrained", spy)
    folder = str(tiny_folders("gpt2"))
    assert main(["capture", folder, TEXT, "--out", str(tmp_path / "a.safetensors")]) == 0
    assert seen and not any(seen)  # every config load of the run (transformers loads it again inside)
    seen.clear()
    assert main(["capture", folder, TEXT, "--out", str(tmp_path / "b.safetensors"), "--trust-remote-code"]) == 0
    assert seen and all(seen)


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text(tmp_path, capsys, text):
    refused(capsys, ["capture", str(tmp_path), text], "TEXT: empty")


def test_text_longer_than_the_context(tiny_folders, tmp_path, capsys):
    require_models()
    out = tmp_path / "long.safetensors"
    line = refused(capsys, ["capture", str(tiny_folders("gpt2")), "cat " * 200, "--out", str(out)], "TEXT:")
    assert "takes at most 64" in line  # n_positions of the tiny GPT-2
    assert leftovers(tmp_path) == []


def test_text_from_a_file(tiny_folders, tmp_path, capsys):
    require_models()
    (tmp_path / "t.txt").write_text(TEXT, encoding="utf-8")
    out = tmp_path / "f.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), "--file", str(tmp_path / "t.txt"), "--out", str(out)]) == 0
    assert out.exists()
    refused(capsys, ["capture", str(tiny_folders("gpt2")), "--file", str(tmp_path / "none.txt")], "cannot read")
    refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT, "--file", str(tmp_path / "t.txt")], "one of them")


def test_an_architecture_without_the_interface_is_named(tmp_path, capsys, monkeypatch):
    """An encoder-decoder (T5) and a model whose attention does not go through AttentionInterface."""
    require_models()
    import torch
    from transformers import AutoModel, T5Config

    from tests.capture.tiny_models import byte_level_tokenizer

    tok = byte_level_tokenizer()
    folder = tmp_path / "t5"
    torch.manual_seed(0)
    AutoModel.from_config(
        T5Config(vocab_size=len(tok), d_model=16, d_kv=4, num_heads=2, num_layers=1, d_ff=32, decoder_start_token_id=0)
    ).save_pretrained(folder)
    tok.save_pretrained(folder)
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(folder), TEXT], "T5Config: an encoder-decoder; capture supports GPT-2")
    assert leftovers(tmp_path) == ["t5"]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_a_capture_that_is_not_the_model_is_refused(tiny_folders, tmp_path, capsys, monkeypatch, dtype):
    """Drop the causal mask from the capture (a wrong capture): the check sees it and writes nothing,
    in every dtype (bfloat16's allowance is wide, a missing mask is wider)."""
    require_models()
    from attn_tui.capture import sink

    monkeypatch.setattr(sink, "mask_of", lambda layer: "none")
    out = tmp_path / "wrong.safetensors"
    folder = str(tiny_folders("llama", initializer_range=0.3))
    line = refused(capsys, ["capture", folder, TEXT, "--out", str(out), "--dtype", dtype])
    assert "differs from the model's by" in line and "no file written" in line
    assert leftovers(tmp_path) == []


def test_a_wrong_scale_is_refused(tiny_folders, tmp_path, capsys, monkeypatch):
    require_models()
    from attn_tui.capture import interface

    real = interface.Recorder.record

    def record(self, module, query, key, value, mask, scaling, kwargs, weights):
        real(self, module, query, key, value, mask, scaling * 1.01, kwargs, weights)

    monkeypatch.setattr(interface.Recorder, "record", record)
    out = tmp_path / "wrong.safetensors"
    refused(
        capsys,
        ["capture", str(tiny_folders("gpt2", initializer_range=0.3)), TEXT, "--out", str(out)],
        "no file written",
    )
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("where", ["load", "save"])
def test_an_interrupt_leaves_no_file(tiny_folders, tmp_path, capsys, monkeypatch, where):
    """Ctrl-C while the weights load, or after the first layer is half written: exit 130, nothing left."""
    require_models()
    from attn_tui.capture import pipeline
    from attn_tui.core.heads.layer_file import LayerFile

    real = LayerFile.add

    def interrupt(self, *a, **k):
        if where == "save":
            real(self, *a, **k)  # a layer written, then the interrupt
        raise KeyboardInterrupt

    if where == "load":
        monkeypatch.setattr(pipeline, "load_model", interrupt)
    else:
        monkeypatch.setattr(LayerFile, "add", interrupt)
    out = tmp_path / "x.safetensors"
    assert main(["capture", str(tiny_folders("gpt2")), TEXT, "--out", str(out)]) == 130
    assert leftovers(tmp_path) == []


def test_without_torch_the_extra_is_named(tmp_path):
    """Run where torch cannot be imported (sys.modules["torch"] = None makes its import fail)."""
    code = (
        "import sys; sys.modules['torch'] = None; from attn_tui.cli import main; "
        f"sys.exit(main(['capture', 'gpt2', 'hello', '--out', {str(tmp_path / 'x.safetensors')!r}]))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip() == (
        "attn-tui: capture needs torch and transformers (torch is not installed): pip install 'attn-tui[models]' "
        "(in a checkout: pip install -e '.[models]')"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_rest_of_attn_tui_never_imports_torch():
    """The CLI, the core, the report and the explorer's modules load without torch or transformers."""
    code = (
        "import sys, io, contextlib\n"
        "from attn_tui.cli import main\n"
        "import attn_tui.core, attn_tui.report.text, attn_tui.tui.app, attn_tui.core.heads.capture_check\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['report']) == 0\n"
        "    try:\n"
        "        main(['capture', '--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "bad = [m for m in ('torch', 'transformers', 'tokenizers', 'attn_tui.capture') if m in sys.modules]\n"
        "print(bad)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == "[]"


def test_a_model_outside_the_interface_is_named(tmp_path, capsys, monkeypatch):
    """BLOOM (ALiBi biases, its own attention code) does not call AttentionInterface."""
    require_models()
    import torch
    from transformers import AutoModel, BloomConfig

    from tests.capture.tiny_models import byte_level_tokenizer

    tok = byte_level_tokenizer()
    folder = tmp_path / "bloom"
    torch.manual_seed(0)
    AutoModel.from_config(BloomConfig(vocab_size=len(tok), hidden_size=16, n_head=2, n_layer=1)).save_pretrained(folder)
    tok.save_pretrained(folder)
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(folder), TEXT], "BloomModel does not route attention through AttentionInterface")
    assert leftovers(tmp_path) == ["bloom"]


def test_layers_that_skip_the_interface_are_refused(tiny_folders, tmp_path, capsys, monkeypatch):
    """A model that claims the interface but whose layers never call it: refused, never an empty capture."""
    require_models()
    from attn_tui.capture import interface

    monkeypatch.setattr(interface.Recorder, "record", lambda self, *a: None)
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(tiny_folders("gpt2")), TEXT], "GPT2Model: 0 of 2 layers went through", "supports")
    assert leftovers(tmp_path) == []


def test_soft_capping_is_named(tmp_path, capsys, monkeypatch):
    """Gemma 2 passes softcap (tanh-capped scores): not a softmax(scale·QKᵀ + M), refused by name."""
    require_models()
    import torch
    from transformers import AutoModel, Gemma2Config

    from tests.capture.tiny_models import byte_level_tokenizer

    tok = byte_level_tokenizer()
    folder = tmp_path / "gemma2"
    torch.manual_seed(0)
    cfg = Gemma2Config(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=64,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=0,
    )
    AutoModel.from_config(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["capture", str(folder), TEXT], "Gemma2Attention passes softcap", "capture supports GPT-2")
    assert leftovers(tmp_path) == ["gemma2"]
