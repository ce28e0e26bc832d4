"""The KV-cache chapter's three snippets, run against mini_llm as the handbook prints them.

    python examples/kv_cache_chapter.py [MODEL_DIR]

MODEL_DIR defaults to $MINI_LLM_MODEL or models/SmolLM2-135M-Instruct (make it with
`python -m mini_llm.convert_smollm2`). Changes from the printed text, and why:
- the model path comes from argv/env instead of "models/Qwen3-0.6B";
- random token ids are drawn below the model's vocabulary size instead of 150000
  (SmolLM2 has 49152 tokens; 150000 fits Qwen3 only);
- torch.set_num_threads uses the cores this process may run on instead of 16.
"""

import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local folders only, never the hub

import torch
from transformers import AutoTokenizer

from mini_llm import KVCache, Transformer

path = (sys.argv[1:] or [os.environ.get("MINI_LLM_MODEL", "models/SmolLM2-135M-Instruct")])[0]

# --- Snippet 1: incremental computation with the cache equals a full recompute ---
tok = AutoTokenizer.from_pretrained(path)
model = Transformer.from_pretrained(path)
VOCAB = min(150000, model.cfg.vocab_size)
ids = tok("KV Cache 是大模型推理中最重要的概念之一，因为", return_tensors="pt").input_ids
with torch.no_grad():
    full = model(ids)  # the whole sequence at once
    cache = KVCache(model.cfg.num_hidden_layers)
    step_logits = [model(ids[:, :5], cache)]  # prefill the first 5 tokens
    for t in range(5, ids.shape[1]):  # then decode the rest one by one
        step_logits.append(model(ids[:, t : t + 1], cache))
    incremental = torch.cat(step_logits, dim=1)
diff = (full - incremental).abs().max().item()
print(
    f"incremental vs full recompute: max logit diff {diff:.1e}; "
    f"cache length {cache.length}, K shape {tuple(cache.k[0].shape)}"
)
assert diff < 1e-3 and cache.length == ids.shape[1]

# --- Snippet 2: prefill vs decode time per token ---
torch.set_num_threads(len(os.sched_getaffinity(0)))  # what taskset or a container allows
prompt = tok(
    "介绍一下大模型推理中的 prefill 和 decode 两个阶段。" * 8, return_tensors="pt"
).input_ids


@torch.no_grad()
def timed_generate(input_ids, n_new=20):
    cache = KVCache(model.cfg.num_hidden_layers)
    t0 = time.perf_counter()
    logits = model(input_ids, cache)
    t_prefill = time.perf_counter() - t0
    nxt = logits[:, -1].argmax(-1)
    t0 = time.perf_counter()
    for _ in range(n_new):
        nxt = model(nxt[:, None], cache)[:, -1].argmax(-1)
    return t_prefill, (time.perf_counter() - t0) / n_new


timed_generate(prompt[:, :8], n_new=2)  # warm-up
t_pre, t_dec = timed_generate(prompt)
T = prompt.shape[1]
print(f"prefill {T} tokens: {t_pre * 1000:.0f} ms ({t_pre / T * 1000:.1f} ms per token)")
print(f"decode: {t_dec * 1000:.1f} ms per token")


# --- Snippet 3: batch 1 vs batch 8 decode step time ---
@torch.no_grad()
def decode_step_time(batch, ctx_len=64, steps=10):
    ids = torch.randint(0, VOCAB, (batch, ctx_len))
    cache = KVCache(model.cfg.num_hidden_layers)
    model(ids, cache)
    nxt = torch.randint(0, VOCAB, (batch,))
    t0 = time.perf_counter()
    for _ in range(steps):
        nxt = model(nxt[:, None], cache)[:, -1].argmax(-1)
    return (time.perf_counter() - t0) / steps


decode_step_time(2, steps=2)  # warm-up
t1, t8 = decode_step_time(1), decode_step_time(8)
print(
    f"batch=1: {t1 * 1000:.1f} ms per step; batch=8: {t8 * 1000:.1f} ms per step "
    f"({t8 / t1:.1f}x the time, 8x the tokens)"
)
