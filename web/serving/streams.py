"""Slots for open event streams: each holds a server thread for up to a minute, so their
number is capped in all, per user and per client address (an IPv6 client's /64); past
any cap the client is told to poll instead.

The address cap is what keeps accounts apart from a crowd: four accounts from one
address, each within its own share, held all 8 slots; an address now holds at most
`per_address` of them (a classroom behind one NAT address then polls past that, which
the page does by itself). A visitor is counted by its address alone.
"""

from __future__ import annotations

import threading
from collections import Counter

from web.serving.client_address import client_key

StreamClaim = tuple[str, ...]  # the keys one open stream counts against


def address_key(address: str) -> str:
    """`address` as the client it stands for (web/serving/client_address.py)."""
    return f"ip:{client_key(address)}"


class StreamSlots:
    def __init__(self, total: int, per_user: int, per_address: int) -> None:
        if min(total, per_user, per_address) < 1:
            raise ValueError(
                f"stream caps must be at least 1, got {total}, {per_user} and {per_address}"
            )
        self.total = total
        self.caps = {"user": per_user, "ip": per_address}
        self._held: Counter[str] = Counter()
        self._open = 0
        self._lock = threading.Lock()

    def acquire(self, user_id: int | None, address: str) -> StreamClaim | None:
        """Take a slot for a user (None: a visitor) at `address`, or None when every slot is
        taken, or the user or the address holds its share."""
        keys: StreamClaim = (address_key(address),)
        if user_id is not None:
            keys = (f"user:{user_id}", *keys)
        with self._lock:
            full = self._open >= self.total
            if full or any(self._held[k] >= self.caps[k.partition(":")[0]] for k in keys):
                return None
            self._held.update(keys)
            self._open += 1
            return keys

    def release(self, claim: StreamClaim) -> None:
        with self._lock:
            self._open -= 1
            self._held.subtract(claim)
            for key in claim:
                if self._held[key] <= 0:
                    del self._held[key]

    def open_streams(self) -> int:
        with self._lock:
            return self._open
