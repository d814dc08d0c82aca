"""attn_tui.core: scaled dot-product attention in pure NumPy (no UI imports)."""

from .attention import Trace, additive_mask, attention, blocked_cells, causal_mask, fill_value, softmax
from .builtins import BUILTINS, builtin
from .info import effective_tokens, entropy_bits, row_entropies_bits
from .scenario import Scenario

__all__ = [
    "Trace",
    "Scenario",
    "BUILTINS",
    "builtin",
    "attention",
    "softmax",
    "causal_mask",
    "additive_mask",
    "blocked_cells",
    "fill_value",
    "entropy_bits",
    "row_entropies_bits",
    "effective_tokens",
]
