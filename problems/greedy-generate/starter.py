import torch

from mini_llm import KVCache


@torch.inference_mode()
def generate(model, prompt, max_new_tokens, stop_tokens):
    """prompt: list[int]; returns the new token ids (a stop token ends it and is kept).

    model(ids, cache) takes ids of shape (1, T), appends those T tokens to `cache` and
    returns logits of shape (1, T, vocab); model(ids, cache, last_only=True) returns only
    the last position's, (1, 1, vocab).

    prompt：list[int]；返回新生成的 token id（停止 token 结束生成，且保留在结果里）。
    model(ids, cache) 接受形状为 (1, T) 的 ids，把这 T 个 token 追加到 `cache`，
    返回形状为 (1, T, vocab) 的 logits；model(ids, cache, last_only=True) 只返回
    最后一个位置的，(1, 1, vocab)。
    """
    cache = KVCache(model.cfg.num_hidden_layers)
    # prefill: once
    # prefill：只做一次
    logits = model(torch.tensor([prompt]), cache, last_only=True)
    out = []
    # Your code here: the next token is logits[0, -1].argmax(); keep it, stop when it is a
    # stop token or max_new_tokens are done, else feed only that token:
    #     logits = model(torch.tensor([[token]]), cache)
    # 在这里写代码：下一个 token 是 logits[0, -1].argmax()；保留它，若它是停止 token
    # 或已生成 max_new_tokens 个就停止，否则只把这个 token 送入模型：
    #     logits = model(torch.tensor([[token]]), cache)
    del logits
    return out
