"""Cases for batched-decode: prompts of different lengths, decoded greedily as one batch.

A case names a checkpoint from mini_llm.zoo, the prompts (token ids), max_new_tokens and
the stop tokens. The submission gets the model itself; the observation is every row's new
tokens.

That the rows are decoded as one batch is judged by CPU time, counted by the kernel from
outside the submission's process: cases marked `calibrated` may use at most the factor in
problem.toml times what the reference needs on them. They run on `qwen3-deep-narrow`, whose
48 thin layers cost about the same for one row as for eight, so decoding eight rows one at
a time costs about six times the batch (a count kept inside the process, which the
submission could reset, is no evidence). Each calibrated case has the same shape on every
seed (eight prompts of fixed lengths, 32 tokens, no stop token), only its tokens are drawn:
the judge measures the reference once per case name.

Every case avoids near ties: decoded alone, each prompt's top two logits differ by at least
MIN_GAP at every step it records, so the greedy tokens cannot depend on the last bits of
the arithmetic (the trusted side and the sandbox run torch on different numbers of threads,
and a batch computes in a different order than one row).
"""

import torch

from judge.run.job_device import job_device, on_cpu
from mini_llm import zoo

MIN_GAP = 2e-3  # logits; rounding moves them by ~1e-4 at most (SmolLM2, batched vs alone)
ATTEMPTS = 50  # rounds of drawing again before the case generator gives up


# The CPU rule's cases: eight prompts of these lengths, 32 new tokens each, no stop token.
RULE_MODEL = "qwen3-deep-narrow"
RULE_LENGTHS = (3, 5, 7, 9, 11, 13, 15, 17)
RULE_NEW_TOKENS = 32
# Loaded with this file, before any case, on the job's device: a calibrated case's time must
# be the decoding's alone, not a first load from disk or a first copy to the GPU (a sandbox's
# warm worker has the CPU weights loaded already).
zoo.model(RULE_MODEL, device=job_device().value)


def _case(name, model, prompts, max_new_tokens, stop_tokens, calibrated=False):
    args = {
        "model": model,
        "prompts": prompts,
        "max_new_tokens": max_new_tokens,
        "stop_tokens": stop_tokens,
    }
    case = {"name": name, "args": args}
    if calibrated:
        case["calibrated"] = True
    return case


# ---------------------------------------------------------------- public cases

# (name, model, prompts, max_new_tokens, stop_tokens); every prompt checked for near ties
PUBLIC = [
    # a batch of one: no padding at all
    (
        "one-prompt",
        "qwen3-gqa",
        [
            [792, 592, 229, 680, 302, 786, 964],
        ],
        8,
        [],
    ),
    # three prompts of 10 tokens: a batch, still no padding
    (
        "equal-lengths-no-padding",
        "qwen3-gqa",
        [
            [957, 770, 814, 541, 671, 701, 702, 520, 355, 348],
            [85, 379, 649, 666, 382, 409, 319, 0, 204, 77],
            [560, 971, 890, 706, 38, 829, 225, 661, 352, 205],
        ],
        10,
        [],
    ),
    # 1, 5, 17 and 30 tokens: the short rows are mostly padding
    (
        "ragged-lengths",
        "qwen3-gqa",
        [
            [152],
            [923, 430, 806, 857, 818],
            [332, 563, 922, 975, 2, 238, 664, 606, 705, 456, 713, 602, 523, 67, 667, 529, 912],
            [
                587,
                578,
                625,
                314,
                615,
                801,
                421,
                423,
                917,
                75,
                582,
                751,
                382,
                43,
                593,
                870,
                524,
                356,
                1010,
                229,
                186,
                63,
                837,
                539,
                809,
                560,
                886,
                647,
                701,
                240,
            ],
        ],
        12,
        [],
    ),
    # row 1 emits 356 at step 3 and stops; the others run to 12
    (
        "one-row-stops-early",
        "qwen3-gqa",
        [
            [909, 959, 701, 407, 266, 43],
            [438, 309, 913, 294, 516, 558, 868, 296, 548, 482, 194, 33, 168],
            [401, 842, 886],
        ],
        12,
        [356],
    ),
    # row 0's first token is a stop token: it gets exactly one
    (
        "stop-on-the-first-token",
        "qwen3-gqa",
        [
            [113, 215, 462, 662, 283, 195, 101, 654, 191],
            [288, 43, 432, 482],
        ],
        10,
        [1008],
    ),
    # each row stops on its own token (after 4, 9, 8 and 9 tokens)
    (
        "every-row-stops",
        "qwen3-gqa",
        [
            [270, 395, 942],
            [263, 406, 583, 139, 917, 152, 690, 878],
            [154, 347, 911, 180, 554, 1011, 450, 891, 128, 230, 635, 284],
            [
                362,
                50,
                157,
                325,
                684,
                69,
                868,
                449,
                264,
                263,
                755,
                493,
                654,
                865,
                174,
                1020,
                498,
                174,
                884,
                232,
            ],
        ],
        16,
        [17, 507, 543, 989],
    ),
    # only the prefill's token
    (
        "max-new-tokens-one",
        "qwen3-gqa",
        [
            [470, 355],
            [546, 839, 425, 425, 1016, 971, 582, 833, 798, 265, 94],
            [778, 560, 841, 520, 258, 684, 656],
        ],
        1,
        [],
    ),
    # 8 query heads on 2 KV heads; row 2 stops on 1331, eos 0 never comes
    (
        "wide-batch-of-six",
        "qwen3-gqa-wide",
        [
            [
                1170,
                294,
                992,
                1789,
                1551,
                1803,
                1950,
                318,
                1580,
                1664,
                67,
                1450,
                83,
                1178,
                788,
                143,
                1140,
                202,
                1481,
                593,
                663,
                1993,
                562,
            ],
            [483],
            [
                1244,
                1638,
                1517,
                376,
                1009,
                1773,
                307,
                1716,
                1179,
                46,
                1537,
                1777,
                772,
                901,
                1603,
                996,
                625,
                488,
                886,
                1462,
                1544,
                586,
                1330,
                102,
                941,
                333,
                732,
                628,
                1463,
                1380,
                545,
                1021,
                788,
                1389,
                334,
                1266,
                479,
                1732,
                1612,
                1030,
            ],
            [1238, 374, 265, 1141, 943, 1073, 307, 2037],
            [
                1430,
                935,
                1167,
                1742,
                2021,
                1208,
                200,
                1554,
                922,
                27,
                848,
                1608,
                95,
                1613,
                1940,
                743,
                1533,
                2023,
                1707,
                1431,
                1336,
                1282,
                183,
                1292,
                839,
                884,
                255,
                1971,
                1197,
                1434,
                353,
            ],
            [4, 952, 1833, 218, 5, 1650, 1561, 253, 1265, 1432, 1652, 126, 570, 748, 1594],
        ],
        20,
        [0, 1331],
    ),
    # one real token beside 37 and 39 of padding
    (
        "wide-one-token-prompt-beside-long-ones",
        "qwen3-gqa-wide",
        [
            [1690],
            [
                858,
                172,
                1475,
                385,
                658,
                1032,
                836,
                132,
                443,
                1448,
                90,
                181,
                1331,
                750,
                1453,
                507,
                1219,
                1911,
                389,
                1571,
                1877,
                425,
                896,
                183,
                1914,
                1244,
                1281,
                139,
                1159,
                620,
                1592,
                1882,
                941,
                532,
                1703,
                1701,
                1958,
                1953,
            ],
            [
                696,
                1654,
                1052,
                536,
                791,
                1132,
                1360,
                1412,
                1883,
                1604,
                1083,
                543,
                2010,
                999,
                1196,
                1688,
                1111,
                782,
                1299,
                111,
                1036,
                352,
                965,
                517,
                1125,
                1221,
                1282,
                1225,
                578,
                1666,
                427,
                899,
                495,
                1907,
                929,
                728,
                99,
                214,
                371,
                1494,
            ],
        ],
        14,
        [],
    ),
    # the real SmolLM2 (eos 2); row 0 stops on 940
    (
        "smollm2-two-prompts",
        "smollm2-135m",
        [
            [7563, 24863, 34397],
            [44070, 41973, 45390, 9670, 28862, 22290, 34336, 2386, 41960],
        ],
        6,
        [2, 940],
    ),
]


# The CPU rule on Run: eight ragged prompts on the deep, narrow checkpoint (near ties checked).
PUBLIC_RULE_PROMPTS = [
    [242, 97, 94, 292, 66, 502, 309, 40, 457],
    [168, 337, 258, 404, 478, 108, 373, 450, 28, 272, 319, 186, 434, 35, 409, 348, 182],
    [313, 500, 123],
    [159, 384, 330, 406, 184, 215, 176, 276, 412, 422, 238],
    [130, 291, 475, 46, 231, 321, 118, 80, 331, 199, 340, 105, 335],
    [481, 117, 453, 250, 261, 463, 216, 461, 243, 259, 105, 181, 208, 122, 498],
    [23, 200, 439, 76, 91],
    [328, 344, 488, 497, 344, 142, 191],
]


def public_cases():
    rule = _case("cpu-rule-eight-rows", RULE_MODEL, PUBLIC_RULE_PROMPTS, RULE_NEW_TOKENS, [], True)
    return [_case(*case) for case in PUBLIC] + [rule]


# ---------------------------------------------------------------- generated cases


def generated_cases(rng):
    # Eight random batches and one hidden CPU-rule case: every seed draws fresh shapes, and
    # a Submit stays near the 8 s goal on an idle 2-core machine (eleven and two took 10.6 s
    # on an AMD EPYC).
    plan = ["qwen3-gqa"] * 4 + ["qwen3-gqa-wide"] * 3 + ["smollm2-135m"]
    cases = [_random_case(rng, f"random-{i:02d}-{name}", name) for i, name in enumerate(plan)]
    return cases + [_rule_case(rng, f"cpu-rule-{i}") for i in range(1)]


def _rule_case(rng, name):
    """A calibrated case: the fixed shape of the CPU rule, with tokens from the seed."""
    lengths = list(RULE_LENGTHS)
    rng.shuffle(lengths)
    prompts, _runs = clear_prompts(rng, zoo.model(RULE_MODEL), lengths, RULE_NEW_TOKENS)
    return _case(name, RULE_MODEL, prompts, RULE_NEW_TOKENS, [], calibrated=True)


def _random_case(rng, name, model_name):
    transformer = zoo.model(model_name)
    short = model_name == "smollm2-135m"  # 30 layers and a 49,152-token vocabulary
    batch = rng.randint(2, 3) if short else rng.randint(2, 6)
    max_new = rng.randint(3, 6) if short else rng.randint(4, 20)
    lengths = [rng.randint(1, 12 if short else 40) for _ in range(batch)]
    prompts, runs = clear_prompts(rng, transformer, lengths, max_new)
    return _case(name, model_name, prompts, max_new, _stop_tokens(rng, runs, max_new))


def clear_prompts(rng, transformer, lengths, max_new):
    """Random prompts of these lengths whose greedy runs have no near tie, and the runs.

    A prompt with a near tie is drawn again (same length), until none has one."""
    vocab = transformer.cfg.vocab_size
    prompts = [None] * len(lengths)
    runs = [None] * len(lengths)
    pending = list(range(len(lengths)))
    for _ in range(ATTEMPTS):
        for row in pending:
            prompts[row] = [rng.randrange(vocab) for _ in range(lengths[row])]
        drawn = [prompts[row] for row in pending]
        for row, tokens, gap in zip(
            pending, *greedy_runs(transformer, drawn, max_new), strict=True
        ):
            runs[row] = tokens if gap >= MIN_GAP else None
        pending = [row for row in pending if runs[row] is None]
        if not pending:
            return prompts, runs
    raise RuntimeError(f"prompts of {lengths} tokens kept a near tie after {ATTEMPTS} draws")


def _stop_tokens(rng, runs, max_new):
    """Stop tokens taken from the rows' own runs, so that some rows really stop early."""
    roll = rng.random()
    if roll < 0.15:
        return []
    if roll < 0.3:  # a row stops on its very first token
        return [runs[rng.randrange(len(runs))][0]]
    stops = []
    for row in rng.sample(range(len(runs)), min(len(runs), rng.randint(1, 2))):
        stops.append(runs[row][rng.randrange(max_new)])
    return sorted(set(stops))


@torch.inference_mode()
def greedy_runs(transformer, prompts, max_new):
    """Each prompt's greedy run of max_new tokens (no stop tokens), and the smallest gap
    between its top two logits over those steps.

    mini_llm.generate decodes the runs; one forward pass over prompt + run, with no cache,
    then gives that row's logits of every step at once (a full recomputation equals the cached
    steps up to rounding, which MIN_GAP covers). Only building the cases (the trusted side)
    calls it: generate is what this problem withholds from the submission's process."""
    from mini_llm.generation import generate

    runs = generate(transformer, prompts, max_new, stop_tokens=())
    gaps = []
    for prompt, run in zip(prompts, runs, strict=True):
        steps = transformer(torch.tensor([prompt + run]))[0, len(prompt) - 1 : -1]  # (n, V)
        top = steps.topk(2, dim=-1).values  # (n, 2)
        gaps.append(float((top[:, 0] - top[:, 1]).min()))
    return runs, gaps


# ---------------------------------------------------------------- the driver


def run(sub, args):
    """Decode the case with the submission on the job's device; return its tokens."""
    model = zoo.model(args["model"], device=job_device().value)
    prompts = [list(p) for p in args["prompts"]]
    with torch.inference_mode():
        rows = sub.batched_greedy(model, prompts, args["max_new_tokens"], list(args["stop_tokens"]))
    return on_cpu(rows)
