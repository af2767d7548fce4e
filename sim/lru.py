"""A small thread-safe LRU cache for the renderer's per-board, per-style and per-camera products
(mat textures, printed layers, warp maps): pure caches, safe to share between table sessions."""

from __future__ import annotations

import threading
from collections import OrderedDict


class LruCache:
    """``get_or_make(key, make)``: the cached value for ``key``, made by ``make()`` on a miss; at
    most ``size`` entries, least recently used dropped first. ``make`` runs outside the lock (two
    threads may both make a missing value; one result is kept)."""

    def __init__(self, size: int):
        self.size = int(size)
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key, make):
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
