"""`heads` names a head only for a reading at or above core.heads.readings.NAMES_A_HEAD (issue 51): a
random-weight model's highest induction reading (about 1/t) is a number, not an induction head."""

from __future__ import annotations

import numpy as np

from attn_tui.core.heads import open_heads
from attn_tui.core.heads.multihead_write import save_heads
from attn_tui.core.heads.readings import NAMES_A_HEAD
from attn_tui.core.heads.source import all_readings
from attn_tui.report.heads_text import heads_text


def random_heads(path, T=24, H=4, d=8, seed=0):
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((1, H, T, d)) * 0.3 for _ in range(3))
    tokens = [chr(ord("a") + i % 12) for i in range(T)]  # 12 letters twice: every pattern defined
    save_heads(str(path), Q, K, V, tokens=tokens, mask="causal", source="random")
    return open_heads(str(path))


def test_a_reading_below_the_threshold_names_no_head(tmp_path):
    src = random_heads(tmp_path / "random.npz")
    out = heads_text(src)
    rows = all_readings(src, None)
    for field, what in (("prev_token", "previous-token"), ("induction", "induction"), ("duplicate_token", "duplicate")):
        best = max(rows, key=lambda r: getattr(r, field))
        assert getattr(best, field) < NAMES_A_HEAD  # random weights: no head puts most of its weight there
        assert f"strongest {what} head" not in out
        want = (
            f"on this text no head's {field} reaches {NAMES_A_HEAD}; "
            f"the highest: layer {best.layer}, head {best.head}, {getattr(best, field):.3f}"
        )
        assert want in out


def test_the_trained_demo_still_names_its_heads():
    out = heads_text(open_heads("induction-demo"))
    assert "strongest previous-token head: layer 0, head 0" in out and "strongest induction head: layer 1" in out
    assert "on this text no head's duplicate_token reaches 0.5" in out  # 0.064: no head named a duplicate head


def test_text_demo_on_its_own_sentence_gives_no_verdict_on_a_head():
    """Issue: "no induction head" on text-demo's own sentence, while TEXT_MODEL.md says L1.H0 is one: the
    line says what this text shows (the highest reading), not what kind of head it is."""
    out = heads_text(open_heads("text-demo"))
    assert "no induction head" not in out and "no previous-token head" not in out and "no duplicate head" not in out
    assert "on this text" in out
