"""`python -m attn_tui` does what the `attn-tui` command does."""

import gc
import sys

gc.disable()  # the start-up makes no garbage worth collecting: cli.main resumes it (cli.explorer.run says why)

from .cli import main  # noqa: E402

sys.exit(main())
