"""A serving trace: requests drawn, replayed against an engine step by step, and checked.

The serve-engine problems (the capstone and its stages) share this: their cases.py files
choose which traces and pools, and this module draws them and drives the learner's engine.
A trace is requests (a prompt of token ids and how many tokens to generate) that arrive at
given steps, a KV pool of `num_blocks` blocks of `block_size` tokens, and a budget of tokens
per step. The driver (run, below) adds each request at its arrival step, calls the engine's
step() once per step, and checks after every step that each token it reports came out of
the runner for that request's own sequence. The observation is every request's tokens, the
faults seen (none for a correct engine), whether the 99th-percentile time to first token,
in steps, stayed within the case's bound, and the run's timeline (reported, not compared:
problem.toml's [checker] unchecked).

Expected tokens are each prompt's greedy continuation decoded alone: every request of every
trace is drawn so that, decoded alone, its top two logits differ by at least MIN_GAP at
every step (MIN_GAP_WIDE on the timed traces' wider checkpoint), so batching, chunking
and sharing (which change only the rounding) cannot flip a token. The bound is twice the
problem's reference engine's 99th-percentile time to first token on the same trace, plus
two steps.

Trusted code: the judge builds cases with it, and the driver runs in a trusted process of
its own (the problems' `[driver] side = "trusted"`): the engine it drives is the learner's,
in the job, reached through calls (the judge's judge/run/remote.py), and the runner it hands
the engine reaches the job only as its declared attributes and methods (PoolRunner's
`remote_attributes`, `remote_methods`). Nothing of the trace, the runner, the pool or the
bound is in the learner's process; the engine sees each request when it arrives.
"""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path
from typing import Any

import torch

from mini_llm import zoo
from mini_llm.model import Transformer
from mini_llm.pool_runner import PoolRunner

Args = dict[str, Any]  # a case's arguments, plain data: they cross to the job as JSON
Request = dict[str, Any]  # {"arrival", "prompt", "max_new_tokens"}
Observation = dict[str, Any]

MIN_GAP = 2e-3  # logits: as batched-decode, whose rows also compute in other orders
# On the wider checkpoint of the timed traces: decode-throughput's margin there, 15x what
# batching changed its logits by (docs/BENCHMARKS.md).
MIN_GAP_WIDE = 2e-4
ATTEMPTS = 50  # rounds of drawing a request's tokens again before giving up
BOUND_FACTOR, BOUND_SLACK = 2, 2  # the time-to-first-token bound: 2 x the reference's + 2
MODEL = "qwen3-gqa"
REAL = "smollm2-135m"
# The capstone's scored run: traces of the same shape on the wider checkpoint, where a
# step's forward passes (not the driver's bookkeeping) take the time.
TIMED_MODEL = "qwen3-gqa-wide"
TIMED_WEIGHTS = 24_125_440  # parameters of qwen3-gqa-wide (mini_llm.zoo)
TIMED_NEW_TOKENS = 12
TIMED_LENGTHS = tuple(range(4, 12))  # one request each: short prompts, decode-bound steps
TIMED_PREFIX = 8  # tokens of the system prompt half of the requests share
# The timeline a report carries: enough steps for every public trace of a working engine.
TIMELINE_STEPS = 240

# ---------------------------------------------------------------- the driver


def run(sub: Any, args: Args, device: str) -> Observation:
    """Replay the trace against the submission's engine on `device` (the judge's choice for
    the job, which each problem's cases.py asks for: mini_llm knows nothing of the judge);
    return what it produced."""
    model = zoo.model(args["model"], device=device)
    runner = PoolRunner(
        model,
        args["num_blocks"],
        args["block_size"],
        args["max_tokens_per_step"],
        args.get("host_blocks", 0),
    )
    engine = sub.Engine(runner)
    return replay(engine, runner, args)


def replay(engine: Any, runner: PoolRunner, args: Args) -> Observation:
    requests = args["requests"]
    outputs: list[list[int]] = [[] for _ in requests]
    first: list[int | None] = [None] * len(requests)
    finished: set[int] = set()
    done_at: dict[int, int] = {}  # request id -> the step after the one that finished it
    faults: list[str] = []
    arrivals: dict[int, list[int]] = {}
    for rid, request in enumerate(requests):
        arrivals.setdefault(request["arrival"], []).append(rid)
    # Enough for any engine that makes progress: one token of one request per step.
    limit = (
        max(arrivals, default=0) + sum(len(r["prompt"]) + r["max_new_tokens"] for r in requests) + 8
    )
    step = 0
    while len(finished) < len(requests) and not faults:
        if step > limit:
            waiting = sorted(set(range(len(requests))) - finished)
            faults.append(
                f"after {limit} steps requests {waiting[:8]} have not finished / "
                f"{limit} 步之后请求 {waiting[:8]} 仍未结束"
            )
            break
        for rid in arrivals.get(step, []):
            r = requests[rid]
            engine.add_request(rid, list(r["prompt"]), r["max_new_tokens"])
        runner.begin_step()
        result = engine.step()
        runner.end_step()
        faults.extend(runner.faults)
        if not faults:
            faults.extend(_take(result, step, requests, outputs, first, finished, runner))
        step += 1
        done_at.update((rid, step) for rid in finished if rid not in done_at)
    latency = "within the bound"
    if not faults:
        waits = sorted(first[rid] - r["arrival"] + 1 for rid, r in enumerate(requests))
        p99 = waits[max(0, math.ceil(0.99 * len(waits)) - 1)]
        if p99 > args["ttft_bound"]:
            bound = args["ttft_bound"]
            latency = (
                f"99th-percentile time to first token {p99} steps, over this trace's bound of "
                f"{bound} / 首 token 时间的 99 分位数为 {p99} 步，超过本轨迹的上限 {bound} 步"
            )
    # Faults first: a checker that shows the first difference then shows the fault itself.
    return {
        "faults": faults[:3],
        "tokens": outputs,
        "latency": latency,
        "timeline": timeline(runner, requests, done_at),
    }


def timeline(runner: PoolRunner, requests: list[Request], done_at: dict[int, int]) -> Observation:
    """What each step did for each request, as one string per request with one letter per
    step (TIMELINE_STEPS at most), and the blocks each step's batch held: the picture of a
    run (judge/pictures/timeline_art.py). Built from the runner's records after the run,
    so a timed trace pays nothing for it per step.

    Letters: " " not arrived yet or finished, "." waiting (or preempted), "P" a prefill
    chunk, "D" a decode step, "R" recomputing positions computed before (back after a
    preemption)."""
    steps = runner.steps[:TIMELINE_STEPS]
    computed = [0] * len(requests)
    rows: list[list[str]] = [[] for _ in requests]
    for step, records in enumerate(steps):
        spans: dict[int, tuple[int, int]] = {}
        for record in records:
            lo, hi = spans.get(record.request, (record.start, record.start + record.length))
            spans[record.request] = (
                min(lo, record.start),
                max(hi, record.start + record.length),
            )
        for rid, r in enumerate(requests):
            span = spans.get(rid)
            if span is not None:
                start, end = span
                letter = "R" if start < computed[rid] else "P" if start < len(r["prompt"]) else "D"
                computed[rid] = max(computed[rid], end)
            elif r["arrival"] <= step < done_at.get(rid, math.inf):
                letter = "."
            else:
                letter = " "
            rows[rid].append(letter)
    return {
        "rows": ["".join(row) for row in rows],
        "blocks": [runner.blocks_in_use(step) for step in range(len(steps))],
        "pool": runner.num_blocks,
        "steps": len(runner.steps),
    }


def _take(
    result: object,
    step: int,
    requests: list[Request],
    outputs: list[list[int]],
    first: list[int | None],
    finished: set[int],
    runner: PoolRunner,
) -> list[str]:
    """Check one step's (tokens, finished) and record it; the faults found."""

    def fault(en: str, zh: str) -> list[str]:
        return [f"step {step}: {en} / 第 {step} 步：{zh}"]

    if not isinstance(result, tuple | list) or len(result) != 2:
        kind = type(result).__name__
        return fault(
            f"step() must return (tokens, finished), got {kind}",
            f"step() 必须返回 (tokens, finished)，实际返回了 {kind}",
        )
    produced, done = result
    if not isinstance(produced, dict) or not isinstance(done, list | tuple | set):
        return fault(
            "step() must return a dict of tokens and a list of finished ids",
            "step() 必须返回一个 token 字典和一个已结束 id 的列表",
        )
    for rid, token in produced.items():
        if type(rid) is not int or type(token) is not int:
            kinds = f"{type(rid).__name__} and {type(token).__name__}"
            return fault(
                f"ids and tokens must be Python ints, got {kinds}",
                f"id 和 token 必须是 Python int，实际是 {kinds}",
            )
        if not 0 <= rid < len(requests):
            return fault(f"no request has id {rid}", f"没有 id 为 {rid} 的请求")
        r = requests[rid]
        if step < r["arrival"] or rid in finished:
            return fault(
                f"request {rid} is not running, yet a token is reported for it",
                f"请求 {rid} 并不在运行，却报告了它的 token",
            )
        if len(outputs[rid]) >= r["max_new_tokens"]:
            n = r["max_new_tokens"]
            return fault(
                f"request {rid} already has its {n} tokens", f"请求 {rid} 已经有了全部 {n} 个 token"
            )
        sequence = list(r["prompt"]) + outputs[rid]
        made = runner.emitted(rid, len(sequence))
        if made != (token, runner.prefix_id(sequence)):
            k = len(outputs[rid])
            return fault(
                f"request {rid}'s token {k} ({token!r:.20}) is not what the runner computed at "
                "that position from this request's own prompt and tokens",
                f"请求 {rid} 的第 {k} 个 token（{token!r:.20}）不是 runner 在该位置用这个请求自己的"
                "提示词和 token 算出的那个",
            )
        outputs[rid].append(token)
        if first[rid] is None:
            first[rid] = step
    for rid in done:
        if type(rid) is not int or not 0 <= rid < len(requests) or rid in finished:
            return fault(
                f"finished names {rid!r:.40}, which is no running request",
                f"finished 里的 {rid!r:.40} 不是正在运行的请求",
            )
        if len(outputs[rid]) != requests[rid]["max_new_tokens"]:
            k = len(outputs[rid])
            return fault(
                f"request {rid} is reported finished with {k} tokens",
                f"请求 {rid} 只有 {k} 个 token 就被报告为结束",
            )
        finished.add(rid)
    for rid, r in enumerate(requests):
        if rid not in finished and len(outputs[rid]) == r["max_new_tokens"]:
            return fault(
                f"request {rid} has all its tokens but is not reported finished",
                f"请求 {rid} 已有全部 token，却没有被报告为结束",
            )
    return []


# ---------------------------------------------------------------- the traces


def build(name: str, builder: str, rng: random.Random, engine_class: type) -> dict[str, Any]:
    """A case: the trace BUILDERS[builder] draws from `rng`, near ties drawn away, with its
    time-to-first-token bound from the problem's reference engine `engine_class`."""
    args = BUILDERS[builder](rng)
    # Ids are indexes into this list: in arrival order, as the statements say.
    args["requests"].sort(key=lambda r: r["arrival"])
    args["requests"] = _clear(rng, zoo.model(args["model"]), args["requests"])
    args["ttft_bound"] = _bound(args, engine_class)
    return {"name": name, "args": args}


def _request(arrival: int, prompt: list[int], max_new: int) -> Request:
    return {"arrival": arrival, "prompt": prompt, "max_new_tokens": max_new}


def _tokens(rng: random.Random, n: int, vocab: int = 1024) -> list[int]:
    return [rng.randrange(vocab) for _ in range(n)]


def _pool(
    model: str, block_size: int, num_blocks: int, budget: int, requests: list[Request]
) -> Args:
    return {
        "model": model,
        "block_size": block_size,
        "num_blocks": num_blocks,
        # A swap space in host memory as large as the pool: preempting by swapping out is
        # as open to the engine as recomputing.
        "host_blocks": num_blocks,
        "max_tokens_per_step": budget,
        "requests": requests,
    }


def _single(rng: random.Random) -> Args:
    return _pool(MODEL, 4, 8, 32, [_request(0, _tokens(rng, rng.randint(5, 12)), 8)])


def _staggered(rng: random.Random) -> Args:
    count = rng.randint(5, 7)
    requests = [
        _request(rng.randint(0, 6), _tokens(rng, rng.randint(2, 18)), rng.randint(3, 10))
        for _ in range(count)
    ]
    return _pool(MODEL, 4, 64, 48, requests)


def _long_prompts(rng: random.Random) -> Args:
    # Prompts longer than a step's budget: only an engine that prefills in chunks can run them.
    requests = [_request(i, _tokens(rng, rng.randint(20, 44)), rng.randint(3, 6)) for i in range(3)]
    return _pool(MODEL, 4, 48, 16, requests)


def _shared_prefix(rng: random.Random) -> Args:
    # One system prompt, several questions: full blocks of the prefix can be computed once.
    # The pool is tight, so blocks are freed and handed out again while others are shared.
    blocks = rng.randint(3, 4)
    prefix = _tokens(rng, 4 * blocks)
    requests = [_request(0, prefix + _tokens(rng, rng.randint(1, 3)), 4)]
    for i in range(7):
        requests.append(
            _request(2 + i, prefix + _tokens(rng, rng.randint(1, 6)), rng.randint(3, 9))
        )
    return _pool(MODEL, 4, blocks + 8, 32, requests)


def _burst(rng: random.Random) -> Args:
    # More requests at once than the pool holds to the end: someone must be preempted.
    requests = [_request(0, _tokens(rng, rng.randint(4, 10)), rng.randint(8, 14)) for _ in range(6)]
    need = [-(-(len(r["prompt"]) + r["max_new_tokens"]) // 4) for r in requests]
    return _pool(MODEL, 4, max(max(need), sum(need) // 2), 64, requests)


def _long_among_short(rng: random.Random) -> Args:
    # A long prompt arrives while short ones keep coming and memory is short: whoever is
    # preempted must get back in before those who came after it, or it waits for them all.
    requests = [
        _request(step, _tokens(rng, rng.randint(2, 4)), rng.randint(8, 12)) for step in range(40)
    ]
    requests.insert(10, _request(10, _tokens(rng, rng.randint(30, 34)), 4))
    return _pool(MODEL, 4, 20, 16, requests)


def _real(rng: random.Random) -> Args:
    requests = [
        _request(i, _tokens(rng, rng.randint(3, 8), vocab=49152), rng.randint(2, 4))
        for i in range(3)
    ]
    return _pool(REAL, 4, 12, 16, requests)


def _timed(rng: random.Random) -> Args:
    # Eight requests, two arriving per step; the four shortest prompts follow a shared system
    # prompt. The same lengths and token counts every time, in a fresh order with fresh
    # tokens: the same work per repetition.
    prefix = _tokens(rng, TIMED_PREFIX, vocab=2048)
    lengths = list(TIMED_LENGTHS)
    rng.shuffle(lengths)
    shared = sorted(TIMED_LENGTHS)[: len(TIMED_LENGTHS) // 2]
    requests = []
    for i, n in enumerate(lengths):
        own = _tokens(rng, n, vocab=2048)
        prompt = prefix + own if n in shared else own
        requests.append(_request(i // 2, prompt, TIMED_NEW_TOKENS))
    return _pool(TIMED_MODEL, 4, 160, 64, requests)


# The capstone's stages (serve-static, serve-continuous, serve-paged) also draw these.


def _wave(rng: random.Random) -> Args:
    # Static batching's trace: everyone at step 0; the budget holds every prompt whole and
    # the pool every request to its end.
    requests = [
        _request(0, _tokens(rng, rng.randint(3, 14)), rng.randint(3, 10))
        for _ in range(rng.randint(4, 6))
    ]
    return _pool(MODEL, 4, 48, 96, requests)


def _two_waves(rng: random.Random) -> Args:
    # A second wave arrives once the first can have finished (its longest request needs at
    # most 10 steps): a static batch serves it as soon as it comes.
    late = rng.randint(11, 14)
    requests = [
        _request(arrival, _tokens(rng, rng.randint(3, 14)), rng.randint(3, 10))
        for arrival in [0] * rng.randint(3, 4) + [late] * rng.randint(3, 4)
    ]
    return _pool(MODEL, 4, 64, 64, requests)


def _stream(rng: random.Random) -> Args:
    # One request a step, each short: a batch that waits for its slowest member keeps every
    # newcomer waiting. The pool holds them all at once.
    requests = [
        _request(step, _tokens(rng, rng.randint(2, 10)), rng.randint(4, 10)) for step in range(12)
    ]
    return _pool(MODEL, 4, 64, 16, requests)


def _staggered_tight(rng: random.Random) -> Args:
    # Staggered arrivals on a pool that holds about half of what they need to their ends.
    requests = [
        _request(rng.randint(0, 4), _tokens(rng, rng.randint(4, 16)), rng.randint(6, 12))
        for _ in range(rng.randint(6, 8))
    ]
    need = [-(-(len(r["prompt"]) + r["max_new_tokens"]) // 4) for r in requests]
    return _pool(MODEL, 4, max(max(need), sum(need) // 2), 32, requests)


BUILDERS = {
    "single": _single,
    "staggered": _staggered,
    "long_prompts": _long_prompts,
    "shared_prefix": _shared_prefix,
    "burst": _burst,
    "long_among_short": _long_among_short,
    "real": _real,
    "timed": _timed,
    "wave": _wave,
    "two_waves": _two_waves,
    "stream": _stream,
    "staggered_tight": _staggered_tight,
}


def _clear(rng: random.Random, transformer: Transformer, requests: list[Request]) -> list[Request]:
    """The requests with every near tie drawn away: a request whose greedy run alone has
    two top logits closer than MIN_GAP gets a fresh last prompt token (which changes its
    whole run, and keeps a shared prefix shared), until none has one."""
    vocab = transformer.cfg.vocab_size
    pending = list(range(len(requests)))
    for _ in range(ATTEMPTS):
        gaps = _gaps(transformer, [requests[i] for i in pending])
        least = MIN_GAP_WIDE if transformer is zoo.model(TIMED_MODEL) else MIN_GAP
        pending = [i for i, gap in zip(pending, gaps, strict=True) if gap < least]
        if not pending:
            return requests
        for i in pending:
            requests[i]["prompt"][-1] = rng.randrange(vocab)
    raise RuntimeError(f"requests {pending} kept a near tie after {ATTEMPTS} draws")


@torch.inference_mode()
def _gaps(transformer: Transformer, requests: list[Request]) -> list[float]:
    """Each request's smallest top-two logit gap over its greedy run decoded alone.

    mini_llm.generate decodes the runs as one batch; one forward pass over prompt + run of
    each request alone, with no cache, then gives that request's logits of every step (a
    batch and a full recomputation agree up to rounding, which MIN_GAP covers). Only the
    trusted side builds cases: the decoding loop is what the submission's process lacks."""
    from mini_llm.generation import generate

    prompts = [r["prompt"] for r in requests]
    longest = max(r["max_new_tokens"] for r in requests)
    runs = generate(transformer, prompts, longest, stop_tokens=())
    gaps = []
    for r, run_ in zip(requests, runs, strict=True):
        prompt, run_ = r["prompt"], run_[: r["max_new_tokens"]]
        steps = transformer(torch.tensor([prompt + run_]))[0, len(prompt) - 1 : -1]
        top = steps.topk(2, dim=-1).values
        gaps.append(float((top[:, 0] - top[:, 1]).min()))
    return gaps


class _Schedule:
    """The runner's interface without the model: every chunk's "next token" is 0. The
    reference's schedule depends on the lengths and the prompts' tokens only, so replaying
    it here gives its times to first token without computing a single layer."""

    def __init__(self, args: Args) -> None:
        self.num_blocks, self.block_size = args["num_blocks"], args["block_size"]
        self.max_tokens_per_step = args["max_tokens_per_step"]
        self.host_blocks = args.get("host_blocks", 0)

    def forward(self, chunks: list[object]) -> list[int]:
        return [0] * len(chunks)

    def swap_out(self, pairs: list[object]) -> None:
        pass  # the schedule does not depend on what the blocks hold

    def swap_in(self, pairs: list[object]) -> None:
        pass


def reference_engine(problem_file: str) -> type:
    """The Engine class of the reference.py beside a problem's cases.py (`problem_file`: that
    cases.py, or, as some tools load it, its problem's folder)."""
    here = Path(problem_file)
    path = (here if here.is_dir() else here.parent) / "reference.py"
    spec = importlib.util.spec_from_file_location("serve_engine_reference", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no reference engine at {path}")
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    engine: type = reference.Engine
    return engine


def _bound(args: Args, engine_class: type) -> int:
    """BOUND_FACTOR x the reference engine's 99th-percentile time to first token + slack."""
    requests = args["requests"]
    engine = engine_class(_Schedule(args))
    first: list[int | None] = [None] * len(requests)
    step = 0
    while None in first:
        for rid, r in enumerate(requests):
            if r["arrival"] == step:
                engine.add_request(rid, list(r["prompt"]), r["max_new_tokens"])
        produced, _finished = engine.step()
        for rid in produced:
            if first[rid] is None:
                first[rid] = step
        step += 1
    waits = sorted(int(first[rid] or 0) - r["arrival"] + 1 for rid, r in enumerate(requests))
    return int(BOUND_FACTOR * waits[max(0, math.ceil(0.99 * len(waits)) - 1)] + BOUND_SLACK)
