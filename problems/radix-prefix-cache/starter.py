"""Radix-tree prefix cache. Fill in allocate(), append(), free() and reset(); see the statement."""


class _Node:
    """One edge of the tree: a run of tokens, with its lock count and last-used time."""

    def __init__(self, key: list[int], parent: "_Node | None", lock: int, last_used: int) -> None:
        self.key = key  # this node's own tokens (never empty, except for a root)
        self.parent = parent
        self.children: dict[int, _Node] = {}  # first token of the child's key -> child
        self.lock = lock
        self.last_used = last_used


class RadixCache:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity  # KV memory, in tokens
        self._roots: dict[str | None, _Node] = {}  # one tree per extra key: root's key is []
        self._cached = 0  # tokens held by the tree
        self._private = 0  # tokens held by running requests outside the tree
        self._clock = 0  # advanced by 1 at the start of every allocate/append/free/reset

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        """Admit a request; return how many prompt tokens the tree serves, or None."""
        raise NotImplementedError("allocate")

    def append(self, req_id: int, tokens: list[int]) -> bool:
        """Give a running request room for decoded tokens."""
        raise NotImplementedError("append")

    def free(self, req_id: int) -> int | None:
        """Finish a request: insert all its tokens, unlock its path; return the tokens added."""
        raise NotImplementedError("free")

    def reset(self) -> bool:
        """Empty the tree, unless a request is running."""
        raise NotImplementedError("reset")

    def nodes(self) -> list[tuple[str | None, list[int], int, int, int]]:
        """(extra, prefix, length, lock, last_used) per node, sorted by (extra or "", prefix)."""
        rows = []
        for extra, root in self._roots.items():
            stack = [(child, []) for child in root.children.values()]
            while stack:
                node, above = stack.pop()
                prefix = above + node.key
                rows.append((extra, prefix, len(node.key), node.lock, node.last_used))
                stack.extend((child, prefix) for child in node.children.values())
        return sorted(rows, key=lambda r: (r[0] or "", r[1]))

    def cached_tokens(self) -> int:
        return self._cached

    def free_tokens(self) -> int:
        return self.capacity - self._cached - self._private
