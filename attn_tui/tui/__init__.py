"""Everything that imports Textual: the app (``attn_tui.tui.app:AttentionApp``), its State,
keys, actions, views, screens and widgets. See the README's "How the code is laid out"."""
