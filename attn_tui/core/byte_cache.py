"""A cache bounded by the bytes it holds, not by its number of entries (STYLE 19).

``functools.lru_cache(maxsize=256)`` of 36 MiB mask blocks held 2.3 GiB for one 16,384-token heads
file of 2 KB (issue 44). A ByteCache keeps the most recently used values whose arrays together are at
most ``max_bytes``; a value larger than that is computed and handed back, never kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any


def nbytes(value: Any) -> int:
    """The bytes of the arrays in ``value`` (an array, or a tuple or list of them); 0 for anything else."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(nbytes(v) for v in value)
    return 0


class ByteCache:
    """key -> value, least recently used dropped first, at most ``max_bytes`` of arrays held."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.held = 0  # bytes of the values kept now
        self._items: OrderedDict[Any, Any] = OrderedDict()  # key -> (value, its bytes)
        self._lock = threading.Lock()  # a heads screen's worker and the event loop share the module's caches

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: object, make: Any) -> Any:
        """The value kept for ``key``, else ``make()`` (kept when it fits, the oldest dropped to make room)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
        value = make()
        size = nbytes(value)
        if size > self.max_bytes:
            return value
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, size)
                self.held += size
            while self.held > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.held -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.held = 0
