import torch

from mini_llm import generate


@torch.inference_mode()
def decode_batch(model, prompts, max_new_tokens):
    """Greedy continuations of every prompt, decoded together as one batch."""
    return generate(model, prompts, max_new_tokens, stop_tokens=())
