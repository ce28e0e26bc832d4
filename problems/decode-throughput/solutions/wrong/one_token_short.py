# expect: WA at case two-rows
# differs: 1 line
# Mistake: decodes max_new_tokens - 1 tokens (the first token, taken from the prefill's
# logits, is not counted as one of the new tokens).
import torch

from mini_llm import generate


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """Greedy continuations of every prompt, decoded together as one batch."""
    return generate(model, prompts, max_new_tokens - 1, stop_tokens=())
