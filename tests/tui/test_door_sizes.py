"""One size rule for every door that reads an array file (issue 48 item 1, issue 53 item 2).

Every door's size decision goes through core.reader_sizes.reader_problem: `heads`, `report
--layer/--head`, `--scenario` and the in-app open (heads_nav.open_ref), the heads screen, the token
view and the model view (they read the source that door opened), capture's own re-open
(multihead_io.open_file) and capture before its forward (capture.limits.check_shapes). For each
shape below, each door opens the file when reader_problem admits it and refuses it, with that
function's own line, when it does not: two doors cannot disagree.

The regression: a GPT-2-small-wide W_O (768) at 1,024 tokens and a 1,024-wide one at 4,096 tokens
were refused by every door ('W_O: width 1024; with 4096 tokens d_model, d_k, d_v are at most 256').
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.capture.limits import check_shapes as capture_shapes
from attn_tui.cli import main
from attn_tui.core.heads.multihead_io import open_file
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.reader_sizes import reader_problem
from attn_tui.tui.app import AttentionApp
from attn_tui.tui.heads_nav import open_ref
from attn_tui.tui.screens.heads import HeadsScreen
from attn_tui.tui.screens.model import ModelScreen
from attn_tui.tui.screens.tokens import TokensScreen


class Config:  # what capture.limits reads of a model's config
    def __init__(self, heads, d_head, d_model):
        self.num_attention_heads, self.head_dim, self.hidden_size = heads, d_head, d_model


def _real(tmp_path, T, d_model, H=2, d=8):
    """A small-headed multi-head file whose W_O is as wide as a real model's: (H·d, d_model)."""
    rng = np.random.default_rng(T + d_model)
    Q, K, V = (rng.standard_normal((1, H, T, d)).astype(np.float32) for _ in range(3))
    W_O = (rng.standard_normal((1, H * d, d_model)) / np.sqrt(H * d)).astype(np.float32)
    tokens = [("the", "cat", "sat", "on", "a", "mat")[i % 6] for i in range(T)]
    return save_heads(tmp_path / f"w{d_model}_t{T}.safetensors", Q, K, V, W_O=W_O, tokens=tokens, mask="causal")


def _sparse(tmp_path, T, d_k, d_model, H=1, d_v=None):
    """A .safetensors whose headers promise these shapes in float16 and whose data is a hole in the
    file (sparse: nothing is written), so the doors judge the shapes from the headers alone."""
    d_v = d_k if d_v is None else d_v
    shapes = {"Q": [1, H, T, d_k], "K": [1, H, T, d_k], "V": [1, H, T, d_v]}
    if d_model:
        shapes["W_O"] = [1, H * d_v, d_model]
    return _holes(tmp_path / f"sparse_{T}_{d_k}_{d_model}.safetensors", shapes)


def _holes(path, shapes: dict):
    """Write at ``path`` a .safetensors whose headers promise ``shapes`` in float16 and whose data is
    a hole (the file truncated past its headers); returns the path."""
    head, at = {}, 0
    for key, shape in shapes.items():
        n = 2 * int(np.prod(shape))
        head[key] = {"dtype": "F16", "shape": shape, "data_offsets": [at, at + n]}
        at += n
    raw = json.dumps(head).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + at)
    return path


# (T, d_k, d_model, H): admitted ones are built for real; refused ones sparse (headers only)
REFUSED = [
    (16384, 64, 16400, 256),  # W_O of a layer: 16,384 x 16,400 in float64 is 2.0 GiB and more
    (16384, 16385, 0, 1),  # a width past MAX_WIDTH
    (16384, 10000, 0, 1),  # a head's Q, K, V: 3.7 GiB
]


def _cli(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().err.strip()


@pytest.mark.parametrize(("T", "d_model"), [(1024, 768), (4096, 1024)])
async def test_real_widths_open_at_every_door(tmp_path, capsys, settle, T, d_model):
    path = str(_real(tmp_path, T, d_model))
    assert reader_problem(T, T, 8, 8, d_model, heads=2) is None
    assert capture_shapes(Config(12, 64, 768), 1024, "gpt2") is None  # a GPT-2 small capture is not refused
    assert capture_shapes(Config(16, 128, 2048), 4096, "llama") is None
    assert open_file(path).shapes["W_O"] == (1, 16, d_model)  # capture's own re-open
    assert _cli(capsys, "heads", path, "--layer", "0") == (0, "")
    assert _cli(capsys, "report", "--scenario", path, "--layer", "0", "--head", "1") == (0, "")
    s, ref = open_ref(path)  # --scenario FILE and the in-app open
    assert s.T == T and ref.source.shapes["W_O"][2] == d_model
    app = AttentionApp(scenario=s, head=ref)
    async with app.run_test(size=(120, 40)) as pilot:
        for key, screen in (("h", HeadsScreen), ("T", TokensScreen), ("M", ModelScreen)):
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, screen), (key, app.screen)
            await pilot.press("escape")
        await settle(pilot)
        assert app.state.scenario.T == T and app.state.head.source.shapes["W_O"][2] == d_model


@pytest.mark.parametrize(("T", "d_k", "d_model", "H"), REFUSED)
def test_too_much_to_hold_is_refused_by_every_door_in_the_rules_words(tmp_path, capsys, T, d_k, d_model, H):
    line = reader_problem(T, T, d_k, d_k, d_model, heads=H)
    assert line is not None
    path = str(_sparse(tmp_path, T, d_k, d_model, H))
    with pytest.raises(ValueError) as err:
        open_file(path)
    assert line in str(err.value)
    for argv in (("heads", path), ("report", "--scenario", path, "--layer", "0", "--head", "0")):
        code, said = _cli(capsys, *argv)
        assert code == 2 and line in said, (argv, said)
    with pytest.raises(ValueError) as err:
        open_ref(path)
    assert line in str(err.value)
    said = capture_shapes(Config(H, d_k, d_model), T, "model")
    if d_model:  # a capture of that shape is refused before its forward, with the same line
        assert said is not None and said.endswith(line)


def _single_sparse(tmp_path, T, d):
    """A single head's .safetensors (2-D Q, K, V in float16) whose data is a hole: headers only on disk."""
    return _holes(tmp_path / f"single_{T}_{d}.safetensors", {k: [T, d] for k in "QKV"})


def test_a_few_kb_promising_more_than_a_reader_may_hold_is_refused_by_every_door_and_its_real_twin_opens(
    tmp_path, capsys
):
    """Issue 52: the 2 GiB rule alone admitted a sparse (or zeros-compressed) file of a few KB promising
    a head of 16,384 x 96 (36 MiB in float64 to read): the explorer then held several such heads. What a
    reader holds is now backed by the file's bytes on disk (reader_sizes.reader_budget), decided by the
    same function at every door; the same shapes with their bytes really there open."""
    import os

    from attn_tui.core.reader_sizes import stored_bytes
    from attn_tui.core.scenario_io import resolve

    T, d = 16384, 96
    assert reader_problem(T, T, d, d, heads=1) is None  # what the rule said before: admitted
    multi, single = _sparse(tmp_path, T, d, 0), _single_sparse(tmp_path, T, d)
    for path, heads in ((multi, 1), (single, 0)):
        stored = stored_bytes(os.stat(path))
        assert stored < 2**16, stored  # a few KB on disk (the holes hold none)
        line = reader_problem(T, T, d, d, heads=heads, stored=stored)
        assert line is not None and "on disk (a sparse or compressed file)" in line
        argvs = [("report", "--scenario", str(path))]  # the single-head door (--scenario, the in-app open)
        if heads:
            argvs = [("heads", str(path)), ("heads", str(path), "--rollout", "--query", "1")]
            argvs += [("report", "--scenario", str(path), "--layer", "0", "--head", "0")]
            with pytest.raises(ValueError) as err:
                open_file(str(path))  # capture's own re-open
            assert line in str(err.value)
            with pytest.raises(ValueError) as err:
                open_ref(str(path))  # --scenario FILE and the in-app open
            assert line in str(err.value)
        for argv in argvs:
            code, said = _cli(capsys, *argv)
            assert code == 2 and line in said and "\n" not in said, (argv, said)
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((1, 1, T, d)).astype(np.float16) for _ in range(3))
    real = str(save_heads(tmp_path / "real.safetensors", Q, K, V, mask="causal"))
    assert reader_problem(T, T, d, d, heads=1, stored=stored_bytes(os.stat(real))) is None
    assert open_file(real).shapes["Q"] == (1, 1, T, d)
    s, _ = open_ref(real)
    assert s.T == T and s.d_k == d
    twin = tmp_path / "single_real.npz"
    np.savez(twin, Q=Q[0, 0], K=K[0, 0], V=V[0, 0])
    assert resolve(str(twin), large=True).T == T  # the single-head door
