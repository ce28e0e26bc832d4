"""Benchmark mini_llm against transformers on SmolLM2-135M-Instruct (CPU, fp32 by default).

    python bench/bench_mini_llm.py [--model models/SmolLM2-135M-Instruct] [--threads N]

Prints three tables:
1. the handbook's two measurements for mini_llm (prefill vs decode time per token; batch 8
   vs batch 1 decode step time), with the same code shape as examples/kv_cache_chapter.py;
2. mini_llm and transformers side by side, same checkpoint, dtype and thread count:
   decode tokens/s at batch 1 and 8, prefill tokens/s, end-to-end greedy generate tokens/s;
3. the fraction of the memory-bandwidth bound reached by a batch-1 decode step: weight bytes
   read per step / measured copy bandwidth, divided by the measured step time.
Every time is the median of several repetitions after a warm-up; the two libraries alternate
for --rounds rounds and each keeps its best round (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from mini_llm import KVCache, Transformer, generate

PROMPT_LEN, DECODE_STEPS, CTX_LEN, REPEATS = 256, 20, 64, 5


def median_time(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """Median wall time of fn() over `repeats` runs, after one warm-up run."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def copy_bandwidth_gbs(megabytes: int = 512) -> float:
    """Bytes moved (read + write) per second by a large tensor copy: the machine's stream rate."""
    src = torch.ones(megabytes * 2**20 // 4)
    dst = torch.empty_like(src)
    seconds = median_time(lambda: dst.copy_(src))
    return 2 * src.numel() * 4 / seconds / 1e9


class MiniLLMRunner:
    """Forward steps through mini_llm with its preallocated KVCache."""

    name = "mini_llm"

    def __init__(self, path: Path, dtype: torch.dtype) -> None:
        self.model = Transformer.from_pretrained(path, dtype=dtype)

    def new_cache(self) -> KVCache:
        return KVCache(self.model.cfg.num_hidden_layers)

    def step(self, ids: torch.Tensor, cache: KVCache) -> torch.Tensor:
        return self.model(ids, cache)[:, -1]

    def generate(self, prompt: list[int], n: int) -> list[int]:
        return generate(self.model, [prompt], n, stop_tokens=())[0]


class HFRunner:
    """The same steps through transformers' model and its DynamicCache."""

    name = "transformers"

    def __init__(self, path: Path, dtype: torch.dtype) -> None:
        from transformers import AutoModelForCausalLM

        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).eval()

    def new_cache(self) -> object:
        from transformers import DynamicCache

        return DynamicCache(config=self.model.config)

    def step(self, ids: torch.Tensor, cache: object) -> torch.Tensor:
        return self.model(ids, past_key_values=cache, use_cache=True).logits[:, -1]

    def generate(self, prompt: list[int], n: int) -> list[int]:
        ids = torch.tensor([prompt])
        # No min_new_tokens: its logits processor makes transformers' generate ~10x slower
        # here. A random prompt almost never hits eos; tokens/s counts what was produced.
        out = self.model.generate(
            ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, do_sample=False
        )
        return out[0, len(prompt) :].tolist()


@torch.inference_mode()
def prefill_seconds(runner: MiniLLMRunner | HFRunner, prompt: torch.Tensor) -> float:
    return median_time(lambda: runner.step(prompt, runner.new_cache()))


@torch.inference_mode()
def decode_step_seconds(
    runner: MiniLLMRunner | HFRunner, batch: int, vocab: int, ctx: int
) -> float:
    """Median time of one decode step for `batch` sequences after a `ctx`-token prefill."""
    gen = torch.Generator().manual_seed(batch)
    cache = runner.new_cache()
    nxt = runner.step(torch.randint(0, vocab, (batch, ctx), generator=gen), cache).argmax(-1)
    times = []
    for _ in range(DECODE_STEPS):
        t0 = time.perf_counter()
        nxt = runner.step(nxt[:, None], cache).argmax(-1)
        times.append(time.perf_counter() - t0)
    return statistics.median(times[2:])  # the first steps warm up allocator and caches


def generate_tokens_per_s(runner: MiniLLMRunner | HFRunner, prompt: list[int], n: int) -> float:
    runner.generate(prompt, 4)  # warm-up
    t0 = time.perf_counter()
    produced = len(runner.generate(prompt, n))
    return produced / (time.perf_counter() - t0)


def weight_bytes(model: Transformer) -> int:
    """Bytes of weights a decode step reads: every matrix once (the tied embedding once, as the
    output projection; the input lookup reads only B rows of it)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def measure(runner: MiniLLMRunner | HFRunner, vocab: int) -> dict[str, float]:
    gen = torch.Generator().manual_seed(0)
    prompt = torch.randint(0, vocab, (1, PROMPT_LEN), generator=gen)
    t_prefill = prefill_seconds(runner, prompt)
    t1 = decode_step_seconds(runner, 1, vocab, PROMPT_LEN)
    t1_ctx = decode_step_seconds(runner, 1, vocab, CTX_LEN)
    t8_ctx = decode_step_seconds(runner, 8, vocab, CTX_LEN)
    return {
        "prefill_ms_per_token": t_prefill / PROMPT_LEN * 1e3,
        "decode_ms_per_token": t1 * 1e3,
        "step_b1_ms": t1_ctx * 1e3,
        "step_b8_ms": t8_ctx * 1e3,
        "prefill_tok_s": PROMPT_LEN / t_prefill,
        "decode_b1_tok_s": 1 / t1_ctx,
        "decode_b8_tok_s": 8 / t8_ctx,
        "generate_tok_s": generate_tokens_per_s(runner, prompt[0, :32].tolist(), 32),
    }


def best_of(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Per measurement, the best round: the least time, or the most tokens/s."""
    return {
        key: (max if key.endswith("tok_s") else min)(r[key] for r in rounds) for key in rounds[0]
    }


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def print_tables(ours: dict[str, float], ref: dict[str, float], bw: float, wbytes: int) -> None:
    print("\n## Handbook measurements (mini_llm, then transformers)")
    print(
        "| library | prefill ms/token | decode ms/token | decode/prefill | "
        "batch-1 step ms | batch-8 step ms | b8/b1 |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, r in (("mini_llm", ours), ("transformers", ref)):
        print(
            f"| {name} | {r['prefill_ms_per_token']:.2f} | {r['decode_ms_per_token']:.1f} | "
            f"{r['decode_ms_per_token'] / r['prefill_ms_per_token']:.1f}x | "
            f"{r['step_b1_ms']:.1f} | {r['step_b8_ms']:.1f} | "
            f"{r['step_b8_ms'] / r['step_b1_ms']:.2f}x |"
        )
    print("\n## Side by side (tokens/s, higher is better)")
    print("| measurement | mini_llm | transformers | mini_llm / transformers |")
    print("|---|---|---|---|")
    rows = [
        ("decode, batch 1 (ctx 64)", "decode_b1_tok_s"),
        ("decode, batch 8 (ctx 64)", "decode_b8_tok_s"),
        (f"prefill ({PROMPT_LEN} tokens)", "prefill_tok_s"),
        ("greedy generate, 32 new tokens", "generate_tok_s"),
    ]
    for label, key in rows:
        print(f"| {label} | {ours[key]:.1f} | {ref[key]:.1f} | {ours[key] / ref[key]:.2f}x |")
    bound_ms = wbytes / (bw * 1e9) * 1e3
    print("\n## Memory-bandwidth bound, batch-1 decode step")
    print(
        f"weights read per step {wbytes / 1e6:.0f} MB; copy bandwidth {bw:.1f} GB/s; "
        f"bound {bound_ms:.1f} ms/step"
    )
    for name, r in (("mini_llm", ours), ("transformers", ref)):
        print(
            f"{name}: {r['step_b1_ms']:.1f} ms/step = "
            f"{bound_ms / r['step_b1_ms'] * 100:.0f}% of the bound"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="models/SmolLM2-135M-Instruct")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    import transformers

    print(
        f"CPU: {cpu_model()}, {os.cpu_count()} cores, torch threads {args.threads}; "
        f"torch {torch.__version__}, transformers {transformers.__version__}; {args.dtype}"
    )
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    runners = [MiniLLMRunner(Path(args.model), dtype), HFRunner(Path(args.model), dtype)]
    vocab = runners[0].model.cfg.vocab_size
    # Alternate the libraries for several rounds and keep each one's best round, so that load
    # from other processes on this shared machine penalises neither side systematically.
    results: list[list[dict[str, float]]] = [[], []]
    bandwidths = []
    for _ in range(args.rounds):
        bandwidths.append(copy_bandwidth_gbs())
        for runner, rounds in zip(runners, results, strict=True):
            rounds.append(measure(runner, vocab))
    ours, ref = (best_of(rounds) for rounds in results)
    print_tables(ours, ref, max(bandwidths), weight_bytes(runners[0].model))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; best of {args.rounds} rounds")


if __name__ == "__main__":
    main()
