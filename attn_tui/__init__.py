"""attn-tui: scaled dot-product attention, taken apart live in a terminal."""

__version__ = "0.1.0"
