"""Where one head of a multi-head source came from, for what a report says of its shape and parameters.

A head's Scenario holds its Q, K, V as given (a built-in's Q and K after RoPE for text-demo), so the
Scenario alone has no d_model and no projections: ``report --layer L --head H`` printed "d_model = -"
and "Q, K, V given directly, no projections" for a model that has W_Q, W_K, W_V. The source knows:
a built-in model holds this head's projections; a file with W_O holds the residual stream's width.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .source import HeadSource


class HeadOrigin(NamedTuple):
    """What the source knows of one head beyond its Scenario. d_model: the residual stream's width (None: not
    held); params: this head's W_Q, W_K, W_V entries, d_model (2 d_k +
    d_v), or None when the source holds Q, K, V but not the projections that made them (a file);
    rope: Q and K are the projections turned by RoPE (text-demo), not the products alone."""

    d_model: int | None
    params: int | None
    rope: bool
    tokens: tuple[str, ...] = ()  # the source's own labels, spaces kept (" cat"; the Scenario's: "cat")

    def words(self) -> str:
        """The report's params line."""
        if self.params is None:
            return "params: n/a (the file holds each head's Q, K, V, not the W_Q, W_K, W_V that made them)"
        turned = "; Q and K above are after RoPE" if self.rope else ""
        return f"params d_model * (2 d_k + d_v) = {self.params} (this head's W_Q, W_K, W_V in the model{turned})"


def head_origin(src: HeadSource, layer: int, head: int) -> HeadOrigin:
    """The HeadOrigin of head ``head`` of ``layer``: a built-in model's own W_Q, W_K, W_V (L, H, d_model,
    d_k) (``layer`` and ``head`` checked by the caller); a file with W_O (L, H·d_v, d_model): its width;
    else neither; and the source's labels."""
    entry = getattr(src, "model", None)
    if entry is not None:
        m = entry.model()
        d_model, d_k, d_v = m.W_Q.shape[2], m.W_Q.shape[3], m.W_V.shape[3]
        rope = getattr(m, "rope_base", None) is not None
        return HeadOrigin(int(d_model), int(d_model * (2 * d_k + d_v)), rope, src.tokens)
    if src.has("W_O"):
        return HeadOrigin(int(src.shapes["W_O"][2]), None, False, src.tokens)
    return HeadOrigin(None, None, False, src.tokens)
