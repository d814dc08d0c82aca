"""The door of the heads command and screen: a multi-head built-in by name, or a file by path."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..limits import printable
from ..models import InputError
from .demo import HEAD_BUILTINS
from .multihead_io import open_file
from .source import HeadSource

if TYPE_CHECKING:
    from typing import Any


def open_heads(name_or_path: Any, tokens: str | None = None) -> HeadSource:
    """A HeadSource: a built-in model (HEAD_BUILTINS, run on ``tokens`` when given) or a multi-head
    file (its Q, K, V are fixed, so ``tokens`` is refused once the file is found and read). ValueError:
    one line naming the problem (a name that is neither is said so first, whatever the tokens);
    InputError (one) when it is the text: the CLI names its flag, a dialog its field."""
    name = str(name_or_path)
    if name in HEAD_BUILTINS:
        return HEAD_BUILTINS[name](tokens)
    if not name.lower().endswith((".npz", ".safetensors")):
        raise ValueError(
            f"{printable(name)}: not a multi-head built-in ({', '.join(HEAD_BUILTINS)}) "
            "or a multi-head file (.safetensors, .npz)"
        )
    src = open_file(name_or_path)  # first: a file that is not there, or not readable, is said as such
    if tokens is not None:
        raise InputError(
            f"{printable(name)} holds fixed Q, K, V; only a built-in model "
            f"({', '.join(HEAD_BUILTINS)}) recomputes its heads on new tokens"
        )
    return src
