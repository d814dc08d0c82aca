"""Fixtures of the capture tests: tiny model folders, made once per session (tiny_models.py)."""

from __future__ import annotations

import pytest
from tiny_models import require_models


@pytest.fixture(scope="session")
def tiny_folders(tmp_path_factory):
    """family -> a folder holding a tiny random model of it and a trained tokenizer (made once)."""
    require_models()
    from tiny_models import save_tiny

    made = {}

    def get(family, **over):
        key = (family, repr(sorted(over.items())))
        if key not in made:
            made[key] = save_tiny(tmp_path_factory.mktemp(family), family, **over)
        return made[key]

    return get
