"""serve-engine's engines side by side on the same traces: the reference, an accepted engine
that calls the runner once per chunk, an accepted engine that preempts by swapping, and the
reference without prefix sharing.

Each engine replays every public trace and the five timed traces of one seed in this
process (no sandbox, one torch thread, models loaded first), with the problem's own driver.
The table gives, per trace and engine, the tokens generated per second over the whole
replay (the driver's checks included, as in a judged run), the steps it took, the 99th
percentile of time to first token in steps against the trace's bound, and the most blocks
one step's tables named. The last lines compare each engine with the reference: the
median ratio of its rate on the timed traces.

    python bench/bench_serve_engine.py [--seed 7] [--rounds 3]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.problem.cases import load_module
from judge.problem.problemset import ProblemSet
from mini_llm import serving_trace

PROBLEM = ProblemSet().get("serve-engine")
ENGINES = {
    "reference": PROBLEM.path / "reference.py",
    "one-forward-per-chunk": PROBLEM.path / "solutions" / "accepted" / "one_forward_per_chunk.py",
    "swap-preemption": PROBLEM.path / "solutions" / "accepted" / "swap_preemption.py",
    "no-prefix-sharing": PROBLEM.path / "solutions" / "wrong" / "no_prefix_sharing.py",
}


def _load(path: Path) -> ModuleType:
    return load_module(path.read_text(encoding="utf-8"), path.stem, str(path))


def replay(cases: ModuleType, engine: ModuleType, args: dict) -> dict[str, float]:
    from mini_llm import zoo
    from mini_llm.pool_runner import PoolRunner

    model = zoo.model(args["model"])
    runner = PoolRunner(model, args["num_blocks"], args["block_size"], args["max_tokens_per_step"])
    start = time.perf_counter()
    got = serving_trace.replay(engine.Engine(runner), runner, args)
    seconds = time.perf_counter() - start
    tokens = sum(len(t) for t in got["tokens"])
    first: dict[int, int] = {}
    for step, records in enumerate(runner.steps):
        for record in records:
            prompt = len(args["requests"][record.request]["prompt"])
            if record.start + record.length >= prompt and record.request not in first:
                first[record.request] = step
    waits = sorted(
        first.get(i, len(runner.steps)) - r["arrival"] + 1 for i, r in enumerate(args["requests"])
    )
    return {
        "rate": tokens / seconds,
        "steps": len(runner.steps),
        "p99": waits[max(0, math.ceil(0.99 * len(waits)) - 1)],
        "blocks": max((runner.blocks_in_use(s) for s in range(len(runner.steps))), default=0),
        "ok": float(not got["faults"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="the seed of the timed traces")
    parser.add_argument("--rounds", type=int, default=3, help="replays per trace; the median")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    cases = load_module(PROBLEM.cases_source(), "cases", str(PROBLEM.path / "cases.py"))
    traces = [(c["name"], c["args"]) for c in cases.public_cases()]
    traces += [
        (c["name"], c["args"])
        for c in cases.generated_cases(random.Random(args.seed))
        if "timed" in c
    ]
    engines = {name: _load(path) for name, path in ENGINES.items()}
    head = (
        f"{'trace':<32} {'engine':<22} {'tokens/s':>9} {'steps':>6} {'p99 ttft':>8} "
        f"{'bound':>6} {'blocks':>6}"
    )
    print(head)
    print("-" * len(head))
    rates: dict[str, list[float]] = {name: [] for name in engines}
    for trace, trace_args in traces:
        for name, engine in engines.items():
            runs = [replay(cases, engine, trace_args) for _ in range(args.rounds)]
            rate = statistics.median(r["rate"] for r in runs)
            last = runs[-1]
            if trace.startswith("timed-"):
                rates[name].append(rate)
            flag = "" if last["ok"] else "  (a fault)"
            print(
                f"{trace:<32} {name:<22} {rate:>9.1f} {last['steps']:>6.0f} {last['p99']:>8.0f} "
                f"{trace_args['ttft_bound']:>6} {last['blocks']:>6.0f}{flag}"
            )
    base = rates["reference"]
    print()
    for name, mine in rates.items():
        ratio = statistics.median(m / b for m, b in zip(mine, base, strict=True))
        print(
            f"{name:<22} timed traces: median {statistics.median(mine):7.1f} tokens/s, "
            f"{ratio:.2f}x the reference"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
