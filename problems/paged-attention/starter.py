def write_kv(k_pool, v_pool, slot_mapping, k, v):
    """k_pool, v_pool: (num_blocks, block_size, n_kv, d_h); slot_mapping: (T,) int64;
    k, v: (T, n_kv, d_h). Store token i at slot slot_mapping[i], in place; skip slot -1.
    k_pool、v_pool：(num_blocks, block_size, n_kv, d_h)；slot_mapping：(T,) int64；
    k、v：(T, n_kv, d_h)。原地把第 i 个 token 存到槽位 slot_mapping[i]；跳过槽位 -1。"""
    # Your code here: slot = physical_block * block_size + offset.
    # 在这里写代码：slot = physical_block * block_size + offset。
    raise NotImplementedError


def paged_decode_attention(q, k_pool, v_pool, block_tables, context_lens, scale):
    """q: (B, Hq, d_h); block_tables: (B, max_blocks) int32; context_lens: (B,) int32.
    Returns (B, Hq, d_h): each sequence's query attending to its first context_lens[b] tokens.
    q：(B, Hq, d_h)；block_tables：(B, max_blocks) int32；context_lens：(B,) int32。
    返回 (B, Hq, d_h)：每个序列的查询对它的前 context_lens[b] 个 token 做注意力。"""
    # Your code here: gather each sequence's K and V through its block table.
    # 在这里写代码：通过每个序列的块表取出它的 K 和 V。
    raise NotImplementedError
