"""Cases for cached-attention: one attention layer, called on chunks of new tokens.

A case is a list of calls. The first call gets a cache of `start` tokens (random keys and
values, or none); each later call gets the keys and values the submission returned from
the call before, as an engine's next forward pass would. The weights are random (seeded)
or those of a real layer of a checkpoint from mini_llm.zoo, whose hidden states x are then
the real ones: the layer's input for a seeded prompt.

Those real hidden states come from running the layers before it, which needs the very
attention this problem asks for: mini_llm's is withheld from the submission's process
(problem.toml), so they are computed here when the cases are built, on the trusted side,
and travel in the case's arguments as float32 bytes (base64).
"""

import base64

import torch

from judge.run.job_device import job_device, on_cpu
from mini_llm import zoo

# A real layer's hidden states run to magnitudes in the tens (deep SmolLM2 layers most),
# so float32 rounding alone reaches 1e-5 on its outputs: the absolute tolerance is 1e-4.
REAL_LAYER_CHECK = {"kind": "value", "rel_tol": 1e-4, "abs_tol": 1e-4}


def _random(name, batch, heads, kv_heads, head_dim, qk_norm, start, chunks, seed, hidden=None):
    layer = {
        "kind": "random",
        "hidden": hidden or heads * head_dim // 2,
        "num_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "qk_norm": qk_norm,
        "rope_theta": 1_000_000.0 if qk_norm else 10_000.0,
    }
    args = {"layer": layer, "batch": batch, "start": start, "chunks": chunks, "seed": seed}
    return {"name": name, "args": args}


def _real(name, model, index, batch, chunks, seed):
    x = _layer_input(model, index, batch, sum(chunks), seed)  # (B, P, D), the real input
    layer = {"kind": "zoo", "model": model, "index": index, "input": _packed(x)}
    args = {"layer": layer, "batch": batch, "start": 0, "chunks": chunks, "seed": seed}
    return {"name": name, "args": args, "check": REAL_LAYER_CHECK}


def _layer_input(model_name, index, batch, length, seed):
    """What layer `index` of the checkpoint receives for a seeded prompt: (B, P, D).

    Runs mini_llm's own layers, so it is only ever called where the cases are built."""
    model = zoo.model(model_name)
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(model.cfg.vocab_size, (batch, length), generator=gen)  # (B, P)
    with torch.no_grad():
        return model.layer_input(ids, index)


def _packed(x):
    data = base64.b64encode(bytes(x.clone().untyped_storage())).decode("ascii")  # its own bytes
    return {"shape": list(x.shape), "float32_base64": data}


def _unpacked(packed):
    data = bytearray(base64.b64decode(packed["float32_base64"]))
    return torch.frombuffer(data, dtype=torch.float32).reshape(packed["shape"])


def public_cases():
    return [
        _random("mha-prefill-from-empty", 1, 2, 2, 64, False, 0, [6], seed=1),
        _random("gqa-qk-norm-prefill-from-empty", 2, 4, 2, 128, True, 0, [5], seed=2),
        _random("mha-decode-after-7", 1, 2, 2, 64, False, 7, [1], seed=3),
        _random("gqa-chunk-of-4-after-9", 2, 8, 2, 64, False, 9, [4], seed=4),
        _random("mqa-decode-after-12", 2, 8, 1, 64, False, 12, [1], seed=5),
        _random(
            "qwen3-0.6b-heads-chunk-after-20", 1, 16, 8, 128, True, 20, [3], seed=6, hidden=256
        ),
        _random("gqa-qk-norm-calls-5-1-3-1", 2, 4, 2, 128, True, 0, [5, 1, 3, 1], seed=7),
        _real("smollm2-layer-3-prefill-6-then-decode", "smollm2-135m", 3, 1, [6, 1, 1, 3], seed=8),
        _real("qwen3-gqa-layer-2-chunks-4-4-1", "qwen3-gqa", 2, 2, [4, 4, 1], seed=9),
    ]


def generated_cases(rng):
    cases = []
    for i in range(12):
        kv_heads, group = rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 3, 4])
        head_dim, qk_norm = rng.choice([32, 64, 128]), rng.random() < 0.5
        batch, start = rng.randint(1, 3), rng.choice([0, rng.randint(1, 64)])
        chunks = [rng.choice([1, rng.randint(2, 8)]) for _ in range(rng.choice([1, 1, 2, 3]))]
        hidden = rng.choice([64, 128, 256])
        shape = (batch, kv_heads * group, kv_heads, head_dim, qk_norm, start, chunks)
        name = f"random-{i}-g{group}-kv{kv_heads}-start{start}"
        cases.append(_random(name, *shape, seed=rng.randrange(2**31), hidden=hidden))
    for i, (model, layers) in enumerate([("smollm2-135m", 30), ("qwen3-gqa", 4)]):
        chunks = [rng.randint(1, 8) for _ in range(rng.randint(1, 3))] + [1]
        index = rng.randrange(layers)
        name = f"real-{i}-{model}-layer-{index}"
        cases.append(_real(name, model, index, rng.randint(1, 2), chunks, rng.randrange(2**31)))
    return cases


def run(sub, args):
    """Call the submission once per chunk, each call on the cache the previous one returned."""
    gen = torch.Generator().manual_seed(args["seed"])
    weights, config, x = _layer(args, gen)  # x: (B, P, D), the hidden states of every chunk
    B, start, nkv, hd = args["batch"], args["start"], config["num_kv_heads"], config["head_dim"]
    cache_k = torch.randn(B, nkv, start, hd, generator=gen)  # (B, nkv, start, hd)
    cache_v = torch.randn(B, nkv, start, hd, generator=gen)
    # Drawn on the CPU (the same values on any device), then moved to the job's device.
    device = job_device().value
    weights = {name: w.to(device) for name, w in weights.items()}
    x, cache_k, cache_v = x.to(device), cache_k.to(device), cache_v.to(device)
    steps, done = [], 0
    with torch.no_grad():
        for size in args["chunks"]:
            op = f"T={size} after {start + done}"
            chunk = x[:, done : done + size].clone()  # (B, T, D)
            out, cache_k, cache_v = sub.attention_forward(chunk, weights, cache_k, cache_v, config)
            done += size
            steps.append({"op": op, "result": {"out": out, "keys": cache_k, "values": cache_v}})
            needed = (B, nkv, start + done, hd)
            if not all(_usable(t, needed) for t in (cache_k, cache_v)):
                break  # the next call could not use this cache; the checker says why
    return on_cpu(steps)


def _usable(t, shape):
    return isinstance(t, torch.Tensor) and t.dtype == torch.float32 and tuple(t.shape) == shape


def _layer(args, gen):
    """The layer's weights, its config and the hidden states x (B, P, D) of the case."""
    layer, B, P = args["layer"], args["batch"], sum(args["chunks"])
    if layer["kind"] == "random":
        weights, config = _random_weights(layer, gen)
        return weights, config, torch.randn(B, P, layer["hidden"], generator=gen)
    weights, config = _zoo_weights(zoo.model(layer["model"]), layer["index"])
    return weights, config, _unpacked(layer["input"])  # (B, P, D), built with the case


def _random_weights(layer, gen):
    D, nh, nkv, hd = layer["hidden"], layer["num_heads"], layer["num_kv_heads"], layer["head_dim"]

    def matrix(rows, cols):  # (out, in), scaled so that every output is about unit size
        return torch.randn(rows, cols, generator=gen) / cols**0.5

    weights = {
        "q_proj": matrix(nh * hd, D),
        "k_proj": matrix(nkv * hd, D),
        "v_proj": matrix(nkv * hd, D),
        "o_proj": matrix(D, nh * hd),
    }
    if layer["qk_norm"]:  # gains far from 1, so that normalising after RoPE shows
        weights["q_norm"] = 1.0 + 0.5 * torch.randn(hd, generator=gen)
        weights["k_norm"] = 1.0 + 0.5 * torch.randn(hd, generator=gen)
    config = {
        "num_heads": nh,
        "num_kv_heads": nkv,
        "head_dim": hd,
        "rope_theta": layer["rope_theta"],
        "rms_norm_eps": 1e-6,
    }
    return weights, config


def _zoo_weights(model, index):
    """The layer's weights in the statement's layout, out of mini_llm's fused (in, out) matrix."""
    cfg, attn = model.cfg, model.layers[index].attn
    q_size, kv_size = cfg.q_size, cfg.kv_size
    wqkv = attn.wqkv.weight  # (D, q_size + 2 kv_size)
    weights = {
        "q_proj": wqkv[:, :q_size].T.contiguous(),
        "k_proj": wqkv[:, q_size : q_size + kv_size].T.contiguous(),
        "v_proj": wqkv[:, q_size + kv_size :].T.contiguous(),
        "o_proj": attn.wo.weight.T.contiguous(),
    }
    if attn.q_norm is not None and attn.k_norm is not None:
        weights["q_norm"] = attn.q_norm.weight.clone()
        weights["k_norm"] = attn.k_norm.weight.clone()
    config = {
        "num_heads": cfg.num_attention_heads,
        "num_kv_heads": cfg.num_key_value_heads,
        "head_dim": cfg.head_dim,
        "rope_theta": cfg.rope_theta,
        "rms_norm_eps": cfg.rms_norm_eps,
    }
    return weights, config
