"""Everything that imports Textual: the app (``attn_tui.tui.app:AttentionApp``), its State,
keys, actions, views, screens and widgets. See ARCHITECTURE.md."""
