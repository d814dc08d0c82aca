"""What the file dialogs offer next (AttentionApp.paths): apart from files.py, which imports the
dialogs and the exporters, so that the app can hold one from its start without loading them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ...core.atomic import file_stamp


@dataclass
class FilePaths:
    """What the file dialogs offer next: the last path opened or saved, the last export folder."""

    save: str = ""
    export: str = "attn-export"
    stamps: dict = field(default_factory=dict)  # real path -> file_stamp when this explorer opened or saved it

    def remember(self, path, stamp) -> None:
        """Record ``path``'s stamp as this explorer last read or wrote it."""
        if stamp is not None:
            self.stamps[os.path.realpath(path)] = stamp

    def changed(self, path) -> bool:
        """Was ``path`` written by someone else since this explorer opened or saved it?"""
        known = self.stamps.get(os.path.realpath(path))
        return known is not None and file_stamp(path) != known
