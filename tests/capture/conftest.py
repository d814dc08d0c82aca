"""Fixtures of the capture tests: tiny model folders, made once per session (tiny_models.py), and
the models lane's rule that a skip fails."""

from __future__ import annotations

import os

import pytest

from tests.capture.tiny_models import require_models
from tests.tui.app_fixtures import settle  # noqa: F401 (a fixture: the real widths draw a frame of the token view)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under ATTN_REQUIRE_MODELS=1 (.ci/run's models lane) a skipped capture test is a failure:
    the lane exists to run them, and a skip would hide a missing package."""
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and os.environ.get("ATTN_REQUIRE_MODELS") == "1":
        rep.outcome = "failed"
        rep.longrepr = f"skipped under ATTN_REQUIRE_MODELS=1: {rep.longrepr}"


@pytest.fixture(scope="session")
def tiny_folders(tmp_path_factory):
    """family -> a folder holding a tiny random model of it and a trained tokenizer (made once)."""
    require_models()
    from tests.capture.tiny_models import save_tiny

    made = {}

    def get(family, **over):
        key = (family, repr(sorted(over.items())))
        if key not in made:
            made[key] = save_tiny(tmp_path_factory.mktemp(family), family, **over)
        return made[key]

    return get


@pytest.fixture(autouse=True)
def _hub_env(monkeypatch):
    """capture sets HF_HUB_OFFLINE for the rest of its process (hub.settle: a local folder needs no
    network); in a test process that would leak into the next test: restored after each."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
