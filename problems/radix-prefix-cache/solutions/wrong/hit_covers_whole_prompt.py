# expect: WA at case split-on-partial-match step 4
# differs: 2 lines
# Mistake: matches the whole prompt, so a prompt that is already cached in full is served
# with no token computed at all (nothing would produce the first output token).
from collections.abc import Iterator


class _Node:
    """One edge of the tree: a run of tokens, with its lock count and last-used time."""

    def __init__(self, key: list[int], parent: "_Node | None", lock: int, last_used: int) -> None:
        self.key = key
        self.parent = parent
        self.children: dict[int, _Node] = {}  # first token of the child's key -> child
        self.lock = lock
        self.last_used = last_used


class _Request:
    def __init__(self, extra: str | None, tokens: list[int], node: _Node, matched: int) -> None:
        self.extra = extra
        self.tokens = tokens  # prompt, then every appended token
        self.node = node  # deepest node of the locked path (a namespace root if nothing matched)
        self.matched = matched  # tokens served from the tree; the rest are private


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


class RadixCache:
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._roots: dict[str | None, _Node] = {}  # one tree per extra key
        self._requests: dict[int, _Request] = {}
        self._cached = 0  # tokens held by the tree
        self._private = 0  # tokens held by running requests outside the tree
        self._clock = 0

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        """Admit a request; return how many prompt tokens the tree serves, or None."""
        self._clock += 1
        tokens = list(tokens)
        root = self._roots.setdefault(extra, _Node([], None, 0, 0))
        # At least one prompt token is always computed, so the last one is never matched.
        path, matched = self._walk(root, tokens)
        need = len(tokens) - matched
        # Locking the path takes its unlocked tokens out of what eviction may reclaim.
        newly_locked = sum(k for node, k in path if node.lock == 0)
        if need > self.free_tokens() + self._evictable() - newly_locked:
            return None  # checked before the split, so a refusal changes nothing
        node = self._claim(path, root)
        self._lock(node, +1)  # before evicting: a request never evicts what it just matched
        self._make_room(need)
        self._private += need
        self._requests[req_id] = _Request(extra, tokens, node, matched)
        return matched

    def append(self, req_id: int, tokens: list[int]) -> bool:
        """Give a running request room for decoded tokens (kept private until it finishes)."""
        self._clock += 1
        req = self._requests.get(req_id)
        if req is None or len(tokens) > self.free_tokens() + self._evictable():
            return False
        self._make_room(len(tokens))
        self._private += len(tokens)
        req.tokens.extend(tokens)
        return True

    def free(self, req_id: int) -> int | None:
        """Finish a request: insert all its tokens, unlock its path; return the tokens added."""
        self._clock += 1
        req = self._requests.pop(req_id, None)
        if req is None:
            return None
        root = self._roots[req.extra]
        path, present = self._walk(root, req.tokens)
        node = self._claim(path, root)
        added = req.tokens[present:]
        if added:
            node.children[added[0]] = _Node(added, node, 0, self._clock)
        # Private tokens already in the tree (another request finished them first) are
        # duplicates: their memory is freed, the rest moves into the tree.
        self._private -= len(req.tokens) - req.matched
        self._cached += len(added)
        self._lock(req.node, -1)
        return len(added)

    def reset(self) -> bool:
        """Empty the tree, unless a request is running (its locked path would vanish)."""
        self._clock += 1
        if self._requests:
            return False
        self._roots.clear()
        self._cached = 0
        return True

    def _walk(self, root: _Node, key: list[int]) -> tuple[list[tuple[_Node, int]], int]:
        """The nodes key runs through from root, each with how many of its tokens key covers
        (all of them, except perhaps in the last node), and the total covered. Changes nothing."""
        path, node, i = [], root, 0
        while i < len(key) and key[i] in node.children:
            child = node.children[key[i]]
            k = _common(child.key, key[i:])
            path.append((child, k))
            i += k
            if k < len(child.key):
                break
            node = child
        return path, i

    def _claim(self, path: list[tuple[_Node, int]], root: _Node) -> _Node:
        """Split the last node of path where the walk stopped inside it, and stamp every node
        the walk covered with the clock. Return the node the walk ends at."""
        node = root
        for node, k in path:
            if k < len(node.key):
                node = self._split(node, k)
            node.last_used = self._clock
        return node

    def _split(self, node: _Node, k: int) -> _Node:
        """Cut node after k tokens; the new upper node is returned. The lower part keeps the
        old time (its tokens were not used); both keep the lock count, as the same requests
        run through both."""
        upper = _Node(node.key[:k], node.parent, node.lock, node.last_used)
        upper.parent.children[upper.key[0]] = upper
        node.key = node.key[k:]
        node.parent = upper
        upper.children[node.key[0]] = node
        return upper

    def _lock(self, node: _Node, delta: int) -> None:
        while node.parent is not None:  # namespace roots have no parent and no lock
            node.lock += delta
            node = node.parent

    def _make_room(self, need: int) -> None:
        """Evict whole unlocked leaves, least recently used first, until need tokens are free.
        Re-scanning after each eviction lets a parent that just became a leaf compete."""
        while self.free_tokens() < need:
            leaf = min(self._leaves(), key=lambda n: n.last_used)
            del leaf.parent.children[leaf.key[0]]
            self._cached -= len(leaf.key)

    def _leaves(self) -> Iterator[_Node]:
        for node in self._all_nodes():
            if not node.children and node.lock == 0:
                yield node

    def _evictable(self) -> int:
        # An unlocked node has no locked descendant (a lock covers the whole path), so every
        # unlocked token can be reached by evicting leaves one after another.
        return sum(len(n.key) for n in self._all_nodes() if n.lock == 0)

    def _all_nodes(self) -> Iterator[_Node]:
        stack = [c for root in self._roots.values() for c in root.children.values()]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.children.values())

    def nodes(self) -> list[tuple[str | None, list[int], int, int, int]]:
        """(extra, prefix, length, lock, last_used) per node, sorted by (extra or "", prefix).
        prefix is every token from the root to the node's end; the node's own are the last
        `length` of them."""
        rows = []
        for extra, root in self._roots.items():
            stack = [(c, []) for c in root.children.values()]
            while stack:
                node, above = stack.pop()
                prefix = above + node.key
                rows.append((extra, prefix, len(node.key), node.lock, node.last_used))
                stack.extend((c, prefix) for c in node.children.values())
        return sorted(rows, key=lambda r: (r[0] or "", r[1]))

    def cached_tokens(self) -> int:
        return self._cached

    def free_tokens(self) -> int:
        return self.capacity - self._cached - self._private
