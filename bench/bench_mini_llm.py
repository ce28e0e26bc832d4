"""Benchmark mini_llm against transformers on SmolLM2-135M-Instruct (CPU, fp32 by default).

    python bench/bench_mini_llm.py [--model models/SmolLM2-135M-Instruct] [--threads N]

Prints three tables:
1. the handbook's two measurements for mini_llm (prefill vs decode time per token; batch 8
   vs batch 1 decode step time), with the same code shape as examples/kv_cache_chapter.py;
2. mini_llm and transformers side by side, same checkpoint, dtype and thread count:
   decode tokens/s at batch 1 and 8, prefill tokens/s, end-to-end greedy generate tokens/s;
3. the fraction of the memory-bandwidth bound reached by a batch-1 decode step: weight bytes
   read per step / measured copy bandwidth, divided by the measured step time.
The two libraries take turns sample by sample (one prefill each, one decode step each, ...)
and every number is a median over the samples, so a burst of load from other jobs on a
shared machine hits both alike. --rounds multiplies the number of samples.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from mini_llm import KVCache, Transformer, generate

PROMPT_LEN, CTX_LEN, GENERATE_TOKENS = 256, 64, 32
# Samples per round (each library takes that many turns per measurement).
PREFILL_REPEATS, DECODE_STEPS, GENERATE_REPEATS, COPY_REPEATS = 3, 10, 1, 5


def median_time(fn: Callable[[], object], repeats: int = COPY_REPEATS) -> float:
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


Runner = MiniLLMRunner | HFRunner


def prefill_samples(runner: Runner, prompt: torch.Tensor) -> Iterator[float]:
    """Seconds per prompt token of successive prefills into a fresh cache."""
    while True:
        cache = runner.new_cache()
        t0 = time.perf_counter()
        runner.step(prompt, cache)
        yield (time.perf_counter() - t0) / prompt.shape[1]


def decode_samples(runner: Runner, batch: int, vocab: int, ctx: int) -> Iterator[float]:
    """Seconds of successive decode steps for `batch` sequences after a `ctx`-token prefill."""
    gen = torch.Generator().manual_seed(batch)
    cache = runner.new_cache()
    nxt = runner.step(torch.randint(0, vocab, (batch, ctx), generator=gen), cache).argmax(-1)
    while True:
        t0 = time.perf_counter()
        nxt = runner.step(nxt[:, None], cache).argmax(-1)
        yield time.perf_counter() - t0


def generate_samples(runner: Runner, prompt: list[int]) -> Iterator[float]:
    """Seconds per produced token of successive greedy generate() calls."""
    while True:
        t0 = time.perf_counter()
        produced = len(runner.generate(prompt, GENERATE_TOKENS))
        yield (time.perf_counter() - t0) / produced


def weight_bytes(model: Transformer) -> int:
    """Bytes of weights a decode step reads: every matrix once, except the input embedding,
    of which a step reads only B rows (the output projection is counted in full)."""
    total = sum(p.numel() * p.element_size() for p in model.parameters())
    return total - model.embed.weight.numel() * model.embed.weight.element_size()


def sample_plan(runner: Runner, vocab: int) -> dict[str, tuple[Iterator[float], int]]:
    """Per measurement: a stream of timing samples and how many to take."""
    gen = torch.Generator().manual_seed(0)
    prompt = torch.randint(0, vocab, (1, PROMPT_LEN), generator=gen)
    return {
        "prefill": (prefill_samples(runner, prompt), PREFILL_REPEATS),
        "decode": (decode_samples(runner, 1, vocab, PROMPT_LEN), DECODE_STEPS),
        "step_b1": (decode_samples(runner, 1, vocab, CTX_LEN), DECODE_STEPS),
        "step_b8": (decode_samples(runner, 8, vocab, CTX_LEN), DECODE_STEPS),
        "generate": (generate_samples(runner, prompt[0, :32].tolist()), GENERATE_REPEATS),
    }


@torch.inference_mode()
def median_times(runners: list[Runner], vocab: int, rounds: int) -> list[dict[str, float]]:
    """Median seconds per measurement and runner.

    The runners take turns sample by sample (one prefill, one decode step, ...), so a burst of
    load from other processes on a shared machine hits both sides alike; the median then
    drops the bursts. The first two samples of each stream are warm-up and are discarded.
    """
    plans = [sample_plan(runner, vocab) for runner in runners]
    medians: list[dict[str, float]] = [{} for _ in runners]
    for key in plans[0]:
        print(f"measuring {key} ...", file=sys.stderr, flush=True)
        count = plans[0][key][1] * rounds + 2
        samples: list[list[float]] = [[] for _ in runners]
        for _ in range(count):
            for plan, taken in zip(plans, samples, strict=True):
                taken.append(next(plan[key][0]))
        for result, taken in zip(medians, samples, strict=True):
            result[key] = statistics.median(taken[2:])
    return medians


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
    ours, ref = median_times(runners, ours_model.cfg.vocab_size, args.rounds)
    print_tables(ours, ref, bandwidth, weight_bytes(ours_model))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; medians, --rounds {args.rounds}")


if __name__ == "__main__":
    main()
