"""Slots for open event streams: each holds a server thread for up to a minute, so their
number is capped in all and per client (a user, or an address for visitors); past
either cap the client is told to poll instead."""

from __future__ import annotations

import threading
from collections import Counter


class StreamSlots:
    def __init__(self, total: int, per_client: int) -> None:
        if total < 1 or per_client < 1:
            raise ValueError(f"stream caps must be at least 1, got {total} and {per_client}")
        self.total = total
        self.per_client = per_client
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def acquire(self, client: str) -> bool:
        """Take a slot for `client`; False when all are taken or the client holds its share."""
        with self._lock:
            if sum(self._held.values()) >= self.total or self._held[client] >= self.per_client:
                return False
            self._held[client] += 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            self._held[client] -= 1
            if self._held[client] <= 0:
                del self._held[client]
