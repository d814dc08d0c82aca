"""The command line's exit codes and its one refusal of its own (core refusals are ValueErrors)."""

from __future__ import annotations

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class UsageError(Exception):
    """A command-line mistake; str() is the one-line message (main: exit 2)."""
