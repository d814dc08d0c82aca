"""One assertion for a refusal, used by the tests of every door that refuses with a message."""

from __future__ import annotations

import pytest


def refuses(error: type[Exception], message: str, fn, /, *args, **kw) -> None:
    """``fn(*args, **kw)`` raises ``error`` itself (not a subclass) with exactly ``message``.

    A module binds its door once, e.g. ``refuses = partial(refusals.refuses, EditError)``."""
    with pytest.raises(error) as e:
        fn(*args, **kw)
    assert type(e.value) is error and str(e.value) == message
