"""Radix-tree prefix cache. Fill in allocate(), append(), free() and reset(); see the statement.
基数树前缀缓存。补全 allocate()、append()、free() 和 reset()；详见题面。"""


class _Node:
    """One edge of the tree: a run of tokens, with its lock count and last-used time.
    树的一条边：一段 token，带着它的锁计数和最近使用时间。"""

    def __init__(self, key: list[int], parent: "_Node | None", lock: int, last_used: int) -> None:
        # this node's own tokens (never empty, except for a root)
        # 这个节点自己的 token（除根以外从不为空）
        self.key = key
        self.parent = parent
        # first token of the child's key -> child
        # 子节点 key 的第一个 token -> 子节点
        self.children: dict[int, _Node] = {}
        self.lock = lock
        self.last_used = last_used


class RadixCache:
    def __init__(self, capacity: int) -> None:
        # KV memory, in tokens
        # KV 内存，以 token 计
        self.capacity = capacity
        # one tree per extra key: root's key is []
        # 每个 extra 键一棵树：根的 key 为 []
        self._roots: dict[str | None, _Node] = {}
        # tokens held by the tree
        # 树占着的 token 数
        self._cached = 0
        # tokens held by running requests outside the tree
        # 运行中的请求在树外占着的 token 数
        self._private = 0
        # advanced by 1 at the start of every allocate/append/free/reset
        # 每次 allocate/append/free/reset 开始时加 1
        self._clock = 0

    def allocate(self, req_id: int, tokens: list[int], extra: str | None = None) -> int | None:
        """Admit a request; return how many prompt tokens the tree serves, or None.
        接纳一个请求；返回树提供的 prompt token 数，或 None。"""
        raise NotImplementedError("allocate")

    def append(self, req_id: int, tokens: list[int]) -> bool:
        """Give a running request room for decoded tokens.
        给运行中的请求腾出放解码 token 的空间。"""
        raise NotImplementedError("append")

    def free(self, req_id: int) -> int | None:
        """Finish a request: insert all its tokens, unlock its path; return the tokens added.
        结束一个请求：插入它的全部 token，解锁它的路径；返回新加入的 token 数。"""
        raise NotImplementedError("free")

    def reset(self) -> bool:
        """Empty the tree, unless a request is running.
        清空这棵树，除非有请求正在运行。"""
        raise NotImplementedError("reset")

    def nodes(self) -> list[tuple[str | None, list[int], int, int, int]]:
        """(extra, prefix, length, lock, last_used) per node, sorted by (extra or "", prefix).
        每个节点一条 (extra, prefix, length, lock, last_used)，按 (extra or "", prefix) 排序。"""
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
