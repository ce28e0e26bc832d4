"""The handbook chapter the problems practise: its sections in order, each with a line in
our own words, so the landing page can show the chapter and a problem can link to the
section its problem.toml names (`section = "..."`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Section:
    id: str  # what problem.toml's `section` names; the landing page's anchor is section-<id>
    title: dict[str, str]  # the chapter's own heading, translated for English readers
    gist: dict[str, str]  # one line on what the section teaches

    @property
    def anchor(self) -> str:
        return f"section-{self.id}"


CHAPTER: dict[str, dict[str, str]] = {
    "title": {"zh": "KV Cache 与两阶段推理", "en": "The KV cache and the two phases of inference"},
}

SECTIONS: tuple[Section, ...] = (
    Section(
        "self-test",
        {"zh": "自测", "en": "Self-test"},
        {
            "zh": "五个问题：都答得上来，就可以跳过这一章。",
            "en": "Five questions: if you can answer them all, you can skip the chapter.",
        },
    ),
    Section(
        "why-cache",
        {"zh": "为什么 K、V 可以缓存", "en": "Why K and V can be cached"},
        {
            "zh": "因果注意力下旧 token 的 K、V 不再变化，Q 只用一次；"
            "生成 n 个 token 的工作量从约 n²/2 降到约 n。",
            "en": "Under causal attention an old token's K and V never change and its Q is used "
            "once, so generating n tokens costs about n tokens of work instead of n²/2.",
        },
    ),
    Section(
        "verify",
        {
            "zh": "验证：带缓存的逐步计算等于完整重算",
            "en": "Checking: step by step with a cache equals a full recompute",
        },
        {
            "zh": "先 prefill 再逐个 decode，得到的 logits 应与一次性前向一致："
            "这是检验推理实现最常用的办法。",
            "en": "Prefill, then decode one token at a time: the logits must match one full "
            "forward pass. The usual test of an inference implementation.",
        },
    ),
    Section(
        "prefill-decode",
        {"zh": "prefill 与 decode", "en": "Prefill and decode"},
        {
            "zh": "prefill 一次读权重服务 T 个 token，受算力限制；"
            "decode 每步一个 token，受显存带宽限制。",
            "en": "Prefill shares one read of the weights among T tokens and is compute-bound; "
            "decode has one token per step and is bound by memory bandwidth.",
        },
    ),
    Section(
        "batching",
        {
            "zh": "批处理：让多个请求分摊权重读取",
            "en": "Batching: many requests share one read of the weights",
        },
        {
            "zh": "8 个请求一起 decode，每步只慢约 60%，吞吐约为 5 倍；"
            "但每个请求的 KV 无法分摊，显存先耗尽。",
            "en": "Decoding 8 requests together made a step only about 60% slower, about 5x the "
            "throughput; but each request's KV is its own, and memory runs out first.",
        },
    ),
    Section(
        "memory",
        {"zh": "KV Cache 的显存管理", "en": "Managing KV-cache memory"},
        {
            "zh": "按最大长度预留会造成碎片；"
            "PagedAttention 按块分配、按块共享，另有前缀缓存、抢占、卸载和量化。",
            "en": "Reserving the maximum length fragments memory; PagedAttention hands out and "
            "shares fixed-size blocks, and prefix caching, preemption, offloading and "
            "quantization build on it.",
        },
    ),
)

BY_ID: dict[str, Section] = {s.id: s for s in SECTIONS}


def section_of(section_id: str | None) -> Section | None:
    """The section a problem names, or None where it names none (or one the chapter lacks)."""
    return BY_ID.get(section_id) if section_id is not None else None
