"""`attn-tui serve`'s server (server.py: textual-serve with guard.py's checks) and the process each browser
tab runs (tab.py); the command that starts them is attn_tui/cli/serve.py."""
