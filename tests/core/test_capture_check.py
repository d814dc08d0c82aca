"""The NumPy side of `attn-tui capture` (core/heads/capture_check.py), without torch: the kind of
a model's mask, token labels, the dtype-derived allowance and the check of every head."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.heads.capture_check import (
    UNIT_ROUNDOFF,
    CheckFigure,
    allowed_diff,
    check_heads,
    mask_kind,
    score_max,
    stored_check,
    token_label,
)
from attn_tui.core.heads.source import HeadSource, own_weights_diffs
from attn_tui.core.models.induction import forward, shipped_model
from tests.core.headtools import implied_mask, own_weights_diff

MIN32 = float(np.finfo(np.float32).min)  # transformers' eager masks: 0 where seen, the dtype's min where not


def additive(blocked):
    return np.where(blocked, MIN32, 0.0)


@pytest.mark.parametrize("kind", ["causal", "none", "window:1", "window:3", "window:5"])
def test_mask_kind_reads_back_each_pattern(kind):
    assert mask_kind(additive(implied_mask(kind, 6, 6))) == kind


@pytest.mark.parametrize("W", [6, 9])
def test_a_window_as_wide_as_the_text_is_causal(W):
    assert mask_kind(additive(implied_mask(f"window:{W}", 6, 6))) == "causal"


def test_other_masks_are_additive():
    blocked = implied_mask("causal", 6, 6)
    pad = blocked.copy()
    pad[:, 2] = True  # a padded key
    assert mask_kind(additive(pad)) == "additive"
    bias = additive(blocked)
    bias[3, 1] = -0.5  # a finite bias where a key is seen (ALiBi-like): the kind cannot hold it
    assert mask_kind(bias) == "additive"
    assert mask_kind(np.full((2, 3), -np.inf)) == "additive"  # every key blocked: no kind of ours
    assert mask_kind(additive(np.ones((6, 6), bool) & ~np.eye(6, dtype=bool))) == "window:1"  # itself only
    anti = np.arange(6)[None, :] < np.arange(6)[:, None]  # each query sees itself and the keys after it
    assert mask_kind(additive(anti)) == "additive"


def test_window_pattern_is_transformers_sliding_window():
    """transformers: key kv visible to query q when kv <= q and kv > q - W (W keys, itself included)."""
    W, T = 3, 7
    want = np.array([[not (kv <= q and kv > q - W) for kv in range(T)] for q in range(T)])
    np.testing.assert_array_equal(implied_mask(f"window:{W}", T, T), want)


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("Ġthe", " the"),
        ("the", "the"),
        ("Ġ", "␣"),
        ("ĠĠ", "␣␣"),
        ("Ċ", "↵"),
        ("ĊĊ", "↵↵"),
        ("ĉ", "⇥"),
        ("▁world", " world"),
        ("##ing", "##ing"),
        ("[CLS]", "[CLS]"),
        ("a\x1bb", "a�b"),
        ("Ġ" + "x" * 40, " " + "x" * 22 + "…"),
    ],
)
def test_token_label(raw, label):
    assert token_label(raw) == label


def test_token_labels_are_never_blank():
    for raw in ["", " ", "Ġ", "\u2581", "Ċ"]:
        assert token_label(raw).strip()


def test_allowed_diff_grows_with_roundoff_and_scores():
    f32, f16, bf16 = (allowed_diff(d, 64, 512, 10.0) for d in ("float32", "float16", "bfloat16"))
    assert f32 < f16 < bf16 <= 1.0
    assert allowed_diff("float32", 64, 512, 100.0) > f32
    assert allowed_diff("float32", 64, 4096, 10.0) > f32
    # float32, d_k 64, T' 512, bound 10: expm1(2 (64 u/(1 - 64 u) + 2u) 10) + 516 u + u, u = 2^-24
    u = UNIT_ROUNDOFF["float32"]
    assert f32 == pytest.approx(math.expm1(2 * (64 * u / (1 - 64 * u) + 2 * u) * 10) + 517 * u, rel=1e-12)
    assert allowed_diff("bfloat16", 128, 512, 1e4) == 1.0  # capped: a weight is in [0, 1]
    # the dtype's rounding of S is relative to |S|: a head whose scores are small gets a tighter allowance
    assert allowed_diff("bfloat16", 64, 512, 10.0, score_max=2.0) < allowed_diff("bfloat16", 64, 512, 10.0)
    assert allowed_diff("float32", 64, 512, 10.0, score_max=10.0) == f32


def test_score_max_is_the_largest_scaled_score():
    rng = np.random.default_rng(1)
    Q, K = rng.standard_normal((600, 8)), rng.standard_normal((300, 8))
    assert score_max(Q, K, 0.5, rows=256) == pytest.approx(0.5 * np.abs(Q @ K.T).max(), rel=1e-15)


def demo_source(plant=None, scale_factor=1.0):
    """The induction demo's forward as a HeadSource holding its own A (optionally errors planted: a cell or cells)."""
    f = forward(shipped_model(), [0, 1, 2, 3, 0, 1, 2, 3])
    A = f.A.astype(np.float32).copy()
    for cell in [] if plant is None else plant if isinstance(plant[0], tuple) else [plant]:
        A[cell] += 1e-3
    arrays = {"Q": f.Q.astype(np.float32), "K": f.K.astype(np.float32), "V": f.V.astype(np.float32), "A": A}
    L, H, T, d = f.Q.shape

    def read(name, layer, head=None):
        x = arrays[name][layer] if head is None else arrays[name][layer, head]
        return np.asarray(x, np.float64)

    return HeadSource(
        title="demo",
        source="",
        tokens=tuple("abcdabcd"),
        ids=tuple("abcdabcd"),
        key_tokens=(),
        shapes={k: v.shape for k, v in arrays.items()},
        kv_head=tuple(range(H)),
        scales=(d**-0.5 * scale_factor,) * L,
        masks=(("causal", None),) * L,
        dtype="float32",
        read=read,
    )


def test_check_heads_passes_the_models_own_weights():
    r = check_heads(demo_source(), "float32")
    assert r.holds and (r.n_layers, r.n_heads) == (2, 4)
    assert 0 <= r.max_abs_diff <= r.allowed_at_worst
    assert r.line().startswith("checked against the model: max |ΔA| ") and "over 2 × 4 heads" in r.line()


def test_check_heads_finds_a_planted_error_and_names_the_head():
    r = check_heads(demo_source(plant=(1, 2, 5, 3)), "float32")
    assert not r.holds
    assert [(ly, h) for ly, h, _, _ in r.failed] == [(1, 2)]
    assert r.worst == (1, 2) and r.max_abs_diff == pytest.approx(1e-3, rel=1e-3)


@pytest.mark.parametrize("kv_head", [None, (0, 0, 1, 1)])
def test_a_layers_heads_at_once_are_each_head_alone(kv_head):
    """own_weights_diffs (a layer's heads in one call a block) gives each head's own_weights_diff,
    with a K/V head shared by two query heads too (grouped-query attention: kv_head)."""
    src = demo_source(plant=((0, 3, 6, 1),))
    if kv_head is not None:
        read = src.read
        src = HeadSource(**{**src.__dict__, "kv_head": kv_head, "read": read})
    for layer in range(src.n_layers):
        alone = [own_weights_diff(src, layer, h) for h in range(src.n_heads)]
        assert own_weights_diffs(src, layer).tolist() == pytest.approx(alone, rel=1e-12, abs=1e-15)
        assert own_weights_diffs(src, layer, heads=[2]).tolist() == pytest.approx(alone[2:3], rel=1e-12, abs=1e-15)
    assert kv_head is None or own_weights_diff(src, 0, 1) != own_weights_diff(demo_source(plant=((0, 3, 6, 1),)), 0, 1)


@pytest.mark.parametrize("threads", [2, 3])
def test_the_check_is_the_same_on_threads(threads):
    """The heads shared over threads (capture.run.check) give the one-thread result: every figure,
    the worst head and the failed heads in the heads' order (two errors planted)."""
    src = demo_source(plant=((0, 3, 6, 1), (1, 2, 5, 3)))
    one = check_heads(src, "float32")
    assert [(ly, h) for ly, h, _, _ in one.failed] == [(0, 3), (1, 2)]
    assert check_heads(src, "float32", threads=threads) == one


def test_check_heads_finds_a_wrong_scale():
    assert not check_heads(demo_source(scale_factor=1.01), "float32").holds


def test_check_heads_needs_the_models_a():
    src = demo_source()
    shapes = {k: v for k, v in src.shapes.items() if k != "A"}
    bare = HeadSource(**{**src.__dict__, "shapes": shapes})
    with pytest.raises(ValueError, match="A: missing"):
        check_heads(bare, "float32")


def test_a_file_keeps_raw_tokens_and_provenance(tmp_path):
    from attn_tui.core.heads.multihead_io import open_file
    from attn_tui.core.heads.multihead_write import save_heads
    from tests.core.headtools import save_source

    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((1, 2, 3, 4)).astype(np.float32) for _ in range(3))
    raw = ["Ġthe", "Ċ", "cat"]
    prov = {"model": "tiny", "max_abs_dA": 4e-8, "layers": [0]}
    path = save_heads(
        tmp_path / "c.safetensors", Q, K, V, tokens=[token_label(t) for t in raw], raw_tokens=raw, provenance=prov
    )
    src = open_file(path)
    assert src.raw_tokens == tuple(raw) and src.tokens == (" the", "↵", "cat") and src.provenance == prov
    again = open_file(save_source(src, tmp_path / "again.npz"))
    assert again.raw_tokens == tuple(raw) and again.provenance == prov
    with pytest.raises(ValueError, match="raw_tokens: 2 labels for 3 query tokens"):
        open_file(save_heads(tmp_path / "bad.safetensors", Q, K, V, raw_tokens=raw[:2]))
    with pytest.raises(ValueError, match="provenance: must be a JSON object"):
        open_file(save_heads(tmp_path / "bad2.safetensors", Q, K, V, provenance=[1, 2]))


def test_the_stored_figure_is_read_from_the_provenance_never_made_up():
    """stored_check: the words of the figure a capture kept (provenance max_abs_dA) over the file's
    L × H heads; None for a source without one or with something that is not a check's figure."""
    src = demo_source()  # 2 layers x 4 heads, no provenance: made by hand
    assert stored_check(src) is None
    kept = HeadSource(**{**src.__dict__, "provenance": {"model": "tiny", "max_abs_dA": 4.2e-8}})
    figure = stored_check(kept)
    assert figure.words() == "checked against the model: max |ΔA| 4e-08 over 2 × 4 heads"
    assert figure.brief() == "max |ΔA| 4e-08 vs the model over 2 × 4 heads"
    assert figure.short() == "|ΔA| 4e-08 vs model"
    assert stored_check(HeadSource(**{**src.__dict__, "provenance": {"max_abs_dA": 0}})).short() == "|ΔA| 0 vs model"
    for bad in (None, True, "4e-8", -1e-8, math.nan, math.inf, [4e-8]):
        assert stored_check(HeadSource(**{**src.__dict__, "provenance": {"max_abs_dA": bad}})) is None, bad
    assert stored_check(HeadSource(**{**src.__dict__, "provenance": {"model": "tiny"}})) is None


def test_the_commands_line_and_the_explorers_words_are_one_figure():
    r = check_heads(demo_source(), "float32")
    figure = CheckFigure(r.max_abs_diff, r.n_layers, r.n_heads)
    assert r.line().startswith(figure.words() + " (allowed ")


def long_source(kind, A=None, T=150, d=8):
    """One head of T = 150 tokens (3 blocks of 64 rows, the last one short) under mask ``kind``
    (source.masks' (kind, window)); A: the model's, default the float32 rounding of a naive softmax."""
    rng = np.random.default_rng(5)
    Q, K = rng.standard_normal((1, 1, T, d)), rng.standard_normal((1, 1, T, d))
    S = Q[0, 0] @ K[0, 0].T / np.sqrt(d)
    t, i = np.arange(T)[:, None], np.arange(T)[None, :]
    blocked = {"causal": i > t, "window": (i > t) | (i <= t - 5), "none": np.zeros((T, T), bool)}[kind[0]]
    naive = np.where(blocked, 0.0, np.exp(S - S.max(axis=1, keepdims=True)))
    naive /= naive.sum(axis=1, keepdims=True)
    arrays = {"Q": Q, "K": K, "V": K, "A": (naive.astype(np.float32) if A is None else A)[None, None]}
    src = HeadSource(
        title="long",
        source="",
        tokens=("w",) * T,
        ids=tuple(range(T)),
        key_tokens=(),
        shapes={k: v.shape for k, v in arrays.items()},
        kv_head=(0,),
        scales=(d**-0.5,),
        masks=(kind,),
        dtype="float32",
        read=lambda name, layer, head=None: arrays[name][layer] if head is None else arrays[name][layer, head],
    )
    return src, naive


@pytest.mark.parametrize("kind", [("causal", None), ("window", 5), ("none", None)])
def test_the_check_compares_every_cell_block_by_block(kind):
    """own_weights_diff computes a causal block's seen keys only: its max |ΔA| is the naive one over
    the whole head, and an error the model put where a key is blocked (after the block's last row)
    is found as surely as one where it is seen."""
    src, naive = long_source(kind)
    want = float(np.abs(naive.astype(np.float32) - naive).max())
    assert own_weights_diff(src, 0, 0) == pytest.approx(want, rel=1e-6, abs=1e-15)
    for cell in [(3, 140), (70, 149), (149, 149), (0, 0), (64, 10)]:  # blocked after the block, then seen
        A = naive.astype(np.float32)
        A[cell] += 1e-3
        planted, _ = long_source(kind, A)
        assert own_weights_diff(planted, 0, 0) == pytest.approx(1e-3, rel=1e-3), cell
