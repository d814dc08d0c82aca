"""The command line's exit codes and its one refusal of its own (core refusals are ValueErrors)."""

from __future__ import annotations

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class UsageError(Exception):
    """A command-line mistake; str() is the one-line message (main: exit 2)."""


PREFIX = "attn-tui: "  # every refusal's first words, whichever command or door refused (issue 44)


def refusal(exc) -> str:
    """The one line a refusal says on stderr: PREFIX, then the first line of ``exc`` (its type's
    name when it has no text); PREFIX once, whoever wrote it."""
    text = str(exc)
    line = text.splitlines()[0] if text.strip() else type(exc).__name__
    return line if line.startswith(PREFIX) else PREFIX + line
