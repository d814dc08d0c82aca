"""The induction and duplicate-token scores on heads built by hand, whose answer is known by
construction: a head that copies after every earlier copy scores 1 on ``induction`` however many
copies there are; a head on the earlier copies themselves scores 1 on ``duplicate_token``. And, when
transformer_lens is installed, our scores against its head detector through the stated relation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attn_tui.core.heads.readings import head_readings

EPS = np.finfo(np.float64).eps


def sequence(n_letters, repeats):
    return [chr(ord("a") + i) for i in range(n_letters)] * repeats


def pattern_head(ids, targets):
    """A causal head: row t spreads its weight evenly over targets(t, ids) (keys <= t); row t with
    no target puts all on itself."""
    T = len(ids)
    A = np.zeros((T, T))
    for t in range(T):
        keys = [k for k in targets(t, ids) if k <= t] or [t]
        for k in keys:
            A[t, k] += 1 / len(keys)
    return A


def after_copies(t, ids):
    return [j + 1 for j in range(t) if ids[j] == ids[t]]


def the_copies(t, ids):
    return [j for j in range(t) if ids[j] == ids[t]]


def the_latest(t, ids):
    copies = the_copies(t, ids)
    return [copies[-1] + 1] if copies else []


def readings_of(A, ids):
    T = len(ids)
    seen = np.tril(np.ones((T, T), bool))
    return head_readings(lambda r0, r1: (A[r0:r1], seen[r0:r1]), T, T, ids)


@pytest.mark.parametrize(("n", "repeats"), [(8, 2), (8, 3), (8, 4), (3, 6)])
def test_a_head_after_every_copy_scores_one_however_many_copies(n, repeats):
    ids = sequence(n, repeats)
    r = readings_of(pattern_head(ids, after_copies), ids)
    assert r.induction == pytest.approx(1.0, abs=8 * len(ids) * EPS)


@pytest.mark.parametrize(("n", "repeats"), [(8, 2), (8, 4)])
def test_a_head_on_the_copies_scores_one_on_duplicate_token_and_zero_on_induction(n, repeats):
    ids = sequence(n, repeats)
    r = readings_of(pattern_head(ids, the_copies), ids)
    assert r.duplicate_token == pytest.approx(1.0, abs=8 * len(ids) * EPS)
    assert r.induction == pytest.approx(0.0, abs=8 * len(ids) * EPS)


def test_a_head_after_the_latest_copy_only_is_also_one():
    ids = sequence(5, 4)
    r = readings_of(pattern_head(ids, the_latest), ids)
    assert r.induction == pytest.approx(1.0, abs=8 * len(ids) * EPS)


def test_a_previous_token_head_is_not_an_induction_head():
    ids = sequence(6, 3)
    r = readings_of(pattern_head(ids, lambda t, _: [t - 1] if t else []), ids)
    assert r.prev_token == pytest.approx(1.0)
    assert r.induction == pytest.approx(0.0) and r.duplicate_token == pytest.approx(0.0)


def test_the_transformer_lens_relation_on_a_hand_made_head():
    """TransformerLens averages the pattern's weight over every row, rows with no earlier copy (score 0)
    included: ours × (rows with a copy) / T. Written here from its definition, so it runs without it."""
    ids = sequence(8, 2)
    A = pattern_head(ids, after_copies)
    T = len(ids)
    with_copy = sum(1 for t in range(T) if the_copies(t, ids))
    every_row = sum(sum(A[t, k] for k in after_copies(t, ids)) for t in range(T)) / T
    assert readings_of(A, ids).induction * with_copy / T == pytest.approx(every_row)
    assert every_row == pytest.approx(0.5)  # 8 of 16 rows have a copy: TransformerLens reads it lower


def test_our_induction_through_the_relation_equals_transformer_lens_detector():
    tl = pytest.importorskip("transformer_lens.head_detector")
    torch = pytest.importorskip("torch")
    ids = sequence(8, 3)
    rng = np.random.default_rng(0)
    A = np.tril(rng.random((len(ids), len(ids))))
    A /= A.sum(axis=1, keepdims=True)
    tokens = torch.tensor([[ord(c) for c in ids]])
    detector = tl.get_induction_head_detection_pattern(tokens)  # (T, T) 1 at [t, j+1]
    theirs = tl.compute_head_attention_similarity_score(
        torch.tensor(A), detector, exclude_bos=False, exclude_current_token=False, error_measure="mul"
    )  # Σ (A · pattern) / Σ A, and Σ A = T: the mean over every row
    with_copy = sum(1 for t in range(len(ids)) if the_copies(t, ids))
    assert readings_of(A, ids).induction * with_copy / len(ids) == pytest.approx(theirs, rel=1e-6)


def test_the_transformer_lens_relations_docs_heads_states():
    """docs/HEADS.md's relations, from TransformerLens's definition (Σ(A · pattern) / Σ A over every row):
    previous-token = ours × (T − 1)/T (row 1 has no previous token); through detect_head, which prepends
    a BOS row (no copy, no previous token), the worked example's induction head reads 8/17, not 0.5."""
    ids = sequence(8, 2)
    T = len(ids)
    prev = pattern_head(ids, lambda t, _: [t - 1] if t else [])
    tl_prev = sum(prev[t, t - 1] for t in range(1, T)) / prev.sum()
    assert readings_of(prev, ids).prev_token * (T - 1) / T == pytest.approx(tl_prev)
    with_bos = ["<bos>", *ids]
    A = pattern_head(with_bos, after_copies)  # the BOS row puts all on itself
    tl_bos = sum(sum(A[t, k] for k in after_copies(t, with_bos)) for t in range(T + 1)) / A.sum()
    assert tl_bos == pytest.approx(8 / 17)
    doc = " ".join((Path(__file__).parents[2] / "docs" / "HEADS.md").read_text(encoding="utf-8").split())
    assert "our prev_token × (T − 1) / T" in doc and "8/17 = 0.47" in doc and f"{8 / 17:.2f}" == "0.47"
