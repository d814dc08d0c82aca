"""Issue 52 item 11: the palette's "go to L.H" reads ASCII digits only (core/numparse.whole_digits):
`١.1` was layer 1, head 1."""

from __future__ import annotations

import pytest

from attn_tui.core.heads.door import open_heads
from attn_tui.tui.heads_nav import HeadRef, parse_head


def test_the_palettes_head_takes_ascii_digits_only():
    ref = HeadRef(open_heads("induction-demo"), 0, 0, "induction-demo")
    assert (parse_head("1.3", ref).layer, parse_head("1.3", ref).head) == (1, 3)
    for bad in ("١.1", "1.３", "².1"):
        with pytest.raises(ValueError, match="is not LAYER.HEAD"):
            parse_head(bad, ref)
