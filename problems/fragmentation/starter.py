def simulate(pool_tokens: int, block_size: int, events: list) -> list:
    """Replay the events on both allocators; return one record per event (see the statement)."""
    steps = []
    for event in events:
        # TODO: apply the event to the contiguous allocator and to the paged one.
        raise NotImplementedError(f"handle {event['op']}")
    return steps
