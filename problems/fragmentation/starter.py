def simulate(pool_tokens: int, block_size: int, events: list) -> list:
    """Replay the events on both allocators; return one record per event (see the statement).
    在两种分配器上重放这些事件；每个事件返回一条记录（见题面）。"""
    steps = []
    for event in events:
        # TODO: apply the event to the contiguous allocator and to the paged one.
        # TODO：把这个事件分别作用到连续分配器和分页分配器上。
        raise NotImplementedError(f"handle {event['op']}")
    return steps
