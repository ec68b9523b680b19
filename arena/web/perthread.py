"""`PerThread`: one object per worker thread, made on first use there and all closed together
at shutdown (sqlite3 connections must stay in the thread that opened them). The viewer's read
connections and the contest server's inbox connections are both such pools."""

from __future__ import annotations

import contextlib
import threading
from typing import Callable


class PerThread:
    """``get()`` is this thread's object, made by ``make()`` the first time; ``close()`` closes
    every one made (from whichever thread: errors of closing at shutdown are ignored)."""

    def __init__(self, make: Callable):
        self._make = make
        self._local = threading.local()
        self._all: list = []
        self._lock = threading.Lock()

    def get(self):
        item = getattr(self._local, "item", None)
        if item is None:
            item = self._local.item = self._make()
            with self._lock:
                self._all.append(item)
        return item

    def close(self) -> None:
        with self._lock:
            for item in self._all:
                with contextlib.suppress(Exception):  # closing at shutdown, from another thread
                    item.close()
            self._all.clear()
