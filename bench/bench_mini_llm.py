"""Benchmark mini_llm against transformers on SmolLM2-135M-Instruct (CPU, fp32 by default).

    python bench/bench_mini_llm.py [--model models/SmolLM2-135M-Instruct] [--threads N]

Prints three tables:
1. the handbook's two measurements for mini_llm (prefill vs decode time per token; batch 8
   vs batch 1 decode step time), with the same code shape as examples/kv_cache_chapter.py;
2. mini_llm and transformers side by side, same checkpoint, dtype and thread count:
   decode tokens/s at batch 1 and 8, prefill tokens/s, end-to-end greedy generate tokens/s;
3. the fraction of the memory-bandwidth bound reached by a batch-1 decode step: weight bytes
   read per step / measured copy bandwidth, divided by the measured step time.

Each library runs in a process of its own, as a model is served: with both models in one
process every step of one evicts the other's weights and code from the CPU caches, which
inflates both libraries' small-op costs and hides the difference between them. The two
processes take turns, round after round (which one goes first alternates), so a burst of
load from other jobs on a shared machine hits both alike; ratios are taken per round and
the median over rounds is printed with its range. --rounds sets the number of rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch

from mini_llm import KVCache, Transformer, generate

PROMPT_LEN, CTX_LEN, GENERATE_TOKENS = 256, 64, 32
# Samples per measurement in one worker process, after WARMUP discarded ones.
PREFILL_REPEATS, DECODE_STEPS, GENERATE_REPEATS, COPY_REPEATS, WARMUP = 5, 15, 2, 5, 2
LIBRARIES = ("mini_llm", "transformers")


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

    def __init__(self, path: Path, dtype: torch.dtype, pack_rows: int) -> None:
        self.model = Transformer.from_pretrained(path, dtype=dtype)
        if pack_rows:
            self.model.pack_for_batch(pack_rows)  # a second, packed copy for batch-8 steps

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
def worker_medians(runner: Runner, vocab: int) -> dict[str, float]:
    """Median seconds of each measurement for one library (the body of a worker process)."""
    medians = {}
    for key, (stream, count) in sample_plan(runner, vocab).items():
        samples = [next(stream) for _ in range(count + WARMUP)]
        medians[key] = statistics.median(samples[WARMUP:])
    return medians


def run_worker(library: str, args: argparse.Namespace) -> tuple[dict[str, float], int]:
    """Measure one library in a fresh process: its medians, and mini_llm's weight bytes (else 0)."""
    cmd = [sys.executable, __file__, "--worker", library, "--model", args.model]
    cmd += ["--threads", str(args.threads), "--dtype", args.dtype, "--pack", str(args.pack)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise SystemExit(
            f"{library} worker failed (exit {done.returncode}):\n{done.stderr[-2000:]}"
        )
    try:
        result = json.loads(lines[-1])
        return dict(result["medians"]), int(result.get("weight_bytes", 0))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise SystemExit(f"{library} worker printed no result: {lines[-1][:200]!r}") from exc


def worker_main(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    path = Path(args.model)
    runner: Runner = (
        MiniLLMRunner(path, dtype, args.pack)
        if args.worker == "mini_llm"
        else HFRunner(path, dtype)
    )
    vocab = json.loads((path / "config.json").read_text())["vocab_size"]
    result: dict[str, object] = {"medians": worker_medians(runner, vocab)}
    if isinstance(runner, MiniLLMRunner):
        result["weight_bytes"] = weight_bytes(runner.model)
    print(json.dumps(result))


def paired(rounds: list[dict[str, dict[str, float]]], key: str) -> tuple[float, float, float]:
    """Median, min and max over rounds of transformers' time / mini_llm's time (= speed-up)."""
    ratios = [r["transformers"][key] / r["mini_llm"][key] for r in rounds]
    return statistics.median(ratios), min(ratios), max(ratios)


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def print_tables(rounds: list[dict[str, dict[str, float]]], bw: float, wbytes: int) -> None:
    ours, ref = (
        {k: statistics.median(r[lib][k] for r in rounds) for k in rounds[0][lib]}
        for lib in LIBRARIES
    )
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
    print("| measurement | mini_llm | transformers | mini_llm / transformers (range over rounds) |")
    print("|---|---|---|---|")
    rows = [
        (f"decode, batch 1 (ctx {CTX_LEN})", "step_b1", 1),
        (f"decode, batch 8 (ctx {CTX_LEN})", "step_b8", 8),
        (f"decode, batch 1 (ctx {PROMPT_LEN})", "decode", 1),
        (f"prefill ({PROMPT_LEN} tokens)", "prefill", 1),
        (f"greedy generate ({GENERATE_TOKENS} new tokens)", "generate", 1),
    ]
    for label, key, tokens in rows:
        ratio, low, high = paired(rounds, key)
        print(
            f"| {label} | {tokens / ours[key]:.1f} | {tokens / ref[key]:.1f} | "
            f"{ratio:.2f}x ({low:.2f}-{high:.2f}) |"
        )
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
    parser.add_argument(
        "--pack",
        type=int,
        default=None,
        help="mini_llm packs its weights for decode steps of this many rows "
        "(default 8 for float32, the batch-8 measurement; 0 = never)",
    )
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1 or args.threads < 1 or (args.pack is not None and args.pack < 0):
        parser.error("--rounds and --threads must be >= 1, --pack >= 0")
    if not (Path(args.model) / "config.json").is_file():
        raise SystemExit(f"no model at {args.model}: run `make models` first")
    if args.pack is None:
        args.pack = 8 if args.dtype == "float32" else 0
    if args.worker:
        worker_main(args)
        return
    torch.set_num_threads(args.threads)
    import transformers

    packing = f"packed for {args.pack}-row steps" if args.pack else "not packed"
    print(
        f"CPU: {cpu_model()}, {os.cpu_count()} cores, torch threads {args.threads}; "
        f"torch {torch.__version__}, transformers {transformers.__version__}; {args.dtype}; "
        f"mini_llm weights {packing}"
    )
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rounds: list[dict[str, dict[str, float]]] = []
    wbytes, bandwidth = 0, 0.0
    for i in range(args.rounds):
        order = LIBRARIES if i % 2 == 0 else LIBRARIES[::-1]
        results = {lib: run_worker(lib, args) for lib in order}
        rounds.append({lib: results[lib][0] for lib in LIBRARIES})
        wbytes = results["mini_llm"][1]
        bandwidth = max(bandwidth, copy_bandwidth_gbs())
        print(f"round {i + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print_tables(rounds, bandwidth, wbytes)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; medians over {args.rounds} rounds")


if __name__ == "__main__":
    main()
