"""Benchmark mini_llm against transformers on SmolLM2-135M-Instruct (CPU, fp32 by default).

    python bench/bench_mini_llm.py [--model models/SmolLM2-135M-Instruct] [--threads N]

Prints three tables:
1. the handbook's two measurements for mini_llm (prefill vs decode time per token; batch 8
   vs batch 1 decode step time), with the same code shape as examples/kv_cache_chapter.py;
2. mini_llm and transformers side by side, same checkpoint, dtype and thread count:
   decode tokens/s at batch 1 and 8, prefill tokens/s, end-to-end greedy generate tokens/s;
3. the fraction of the memory-bandwidth bound reached by a batch-1 decode step: weight bytes
   read per step / measured copy bandwidth, divided by the measured step time.
Every time is the median of several repetitions after a warm-up; the two libraries alternate,
measurement by measurement, for --rounds rounds, and each keeps its best (the machine may be
shared with other jobs).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from mini_llm import KVCache, Transformer, generate

PROMPT_LEN, DECODE_STEPS, CTX_LEN, REPEATS, GENERATE_TOKENS = 256, 20, 64, 5, 32


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


def generate_seconds_per_token(runner: MiniLLMRunner | HFRunner, prompt: list[int]) -> float:
    runner.generate(prompt, 4)  # warm-up
    t0 = time.perf_counter()
    produced = len(runner.generate(prompt, GENERATE_TOKENS))
    return (time.perf_counter() - t0) / produced


def weight_bytes(model: Transformer) -> int:
    """Bytes of weights a decode step reads: every matrix once (the tied embedding once, as the
    output projection; the input lookup reads only B rows of it)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def measurements(runner: MiniLLMRunner | HFRunner, vocab: int) -> dict[str, Callable[[], float]]:
    """Each measurement as a function returning seconds (per token or per step)."""
    gen = torch.Generator().manual_seed(0)
    prompt = torch.randint(0, vocab, (1, PROMPT_LEN), generator=gen)
    return {
        "prefill": lambda: prefill_seconds(runner, prompt) / PROMPT_LEN,
        "decode": lambda: decode_step_seconds(runner, 1, vocab, PROMPT_LEN),
        "step_b1": lambda: decode_step_seconds(runner, 1, vocab, CTX_LEN),
        "step_b8": lambda: decode_step_seconds(runner, 8, vocab, CTX_LEN),
        "generate": lambda: generate_seconds_per_token(runner, prompt[0, :32].tolist()),
    }


def best_times(
    runners: list[MiniLLMRunner | HFRunner], vocab: int, rounds: int
) -> list[dict[str, float]]:
    """Best (least) seconds per measurement and runner. The runners alternate measurement by
    measurement, so load from other processes on a shared machine favours neither side."""
    plans = [measurements(runner, vocab) for runner in runners]
    best: list[dict[str, float]] = [{} for _ in runners]
    for key in plans[0]:
        print(f"measuring {key} ...", file=sys.stderr, flush=True)
        for _ in range(rounds):
            for plan, result in zip(plans, best, strict=True):
                result[key] = min(result.get(key, float("inf")), plan[key]())
    return best


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def print_tables(ours: dict[str, float], ref: dict[str, float], bw: float, wbytes: int) -> None:
    print("\n## Handbook measurements")
    print(
        "| library | prefill ms/token | decode ms/token | decode/prefill | "
        "batch-1 step ms | batch-8 step ms | b8/b1 |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, r in (("mini_llm", ours), ("transformers", ref)):
        print(
            f"| {name} | {r['prefill'] * 1e3:.2f} | {r['decode'] * 1e3:.1f} | "
            f"{r['decode'] / r['prefill']:.1f}x | {r['step_b1'] * 1e3:.1f} | "
            f"{r['step_b8'] * 1e3:.1f} | {r['step_b8'] / r['step_b1']:.2f}x |"
        )
    print("\n## Side by side (tokens/s, higher is better)")
    print("| measurement | mini_llm | transformers | mini_llm / transformers |")
    print("|---|---|---|---|")
    rows = [
        (f"decode, batch 1 (ctx {CTX_LEN})", "step_b1", 1),
        (f"decode, batch 8 (ctx {CTX_LEN})", "step_b8", 8),
        (f"decode, batch 1 (ctx {PROMPT_LEN})", "decode", 1),
        (f"prefill ({PROMPT_LEN} tokens)", "prefill", 1),
        (f"greedy generate ({GENERATE_TOKENS} new tokens)", "generate", 1),
    ]
    for label, key, tokens in rows:
        a, b = tokens / ours[key], tokens / ref[key]
        print(f"| {label} | {a:.1f} | {b:.1f} | {a / b:.2f}x |")
    bound_ms = wbytes / (bw * 1e9) * 1e3
    print("\n## Memory-bandwidth bound, batch-1 decode step (ctx 64)")
    print(
        f"weights read per step {wbytes / 1e6:.0f} MB; copy bandwidth {bw:.1f} GB/s; "
        f"bound {bound_ms:.1f} ms/step"
    )
    for name, r in (("mini_llm", ours), ("transformers", ref)):
        step_ms = r["step_b1"] * 1e3
        print(f"{name}: {step_ms:.1f} ms/step = {bound_ms / step_ms * 100:.0f}% of the bound")


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
    ours_runner = MiniLLMRunner(Path(args.model), dtype)
    ours_model = ours_runner.model
    runners = [ours_runner, HFRunner(Path(args.model), dtype)]
    bandwidth = max(copy_bandwidth_gbs() for _ in range(args.rounds))
    ours, ref = best_times(runners, ours_model.cfg.vocab_size, args.rounds)
    print_tables(ours, ref, bandwidth, weight_bytes(ours_model))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; best of {args.rounds} rounds")


if __name__ == "__main__":
    main()
