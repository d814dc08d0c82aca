"""`python -m attn_tui` does what the `attn-tui` command does."""

import sys

from .cli import main

sys.exit(main())
