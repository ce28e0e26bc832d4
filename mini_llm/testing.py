"""Test helpers: small deterministic HF checkpoints (weights + tokenizer) and the oracle.

The weights are random but seeded, drawn with a large standard deviation: with the usual
0.02 init a tiny model's greedy output just repeats the last token, which hides cache bugs.
The tokenizer is a byte-level BPE trained on the text below, so `AutoTokenizer` loads it
from the same folder as the model and every byte string round-trips.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from mini_llm.config import TinyConfig

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")

TRAINING_TEXT = """\
The key and value of a past token never change under causal attention, so they can be cached.
A query is used once, for the token being computed, and is never needed again.
Prefill processes the whole prompt at once and is limited by compute.
Decode produces one token per step and is limited by memory bandwidth.
Batching lets several requests share one read of the weights.
A paged cache splits keys and values into fixed-size blocks that a block table maps.
What is the capital of France? The capital of France is Paris.
One, two, three, four, five, six, seven, eight, nine, ten.
The quick brown fox jumps over the lazy dog. 0123456789 +-*/=()[]{}<>,.;:!?'"
KV Cache 是大模型推理中最重要的概念之一，因为它把生成的计算量从平方级降到线性级。
"""


def write_tokenizer(folder: Path, vocab_size: int) -> int:
    """Train a byte-level BPE on TRAINING_TEXT, save it for AutoTokenizer; return the eos id."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TRAINING_TEXT.splitlines(), trainer=trainer)
    tok.save(str(folder / "tokenizer.json"))
    eos = tok.token_to_id("<|endoftext|>")
    if eos is None:  # cannot happen: it is the first special token; keeps the type an int
        raise RuntimeError("the trained tokenizer lost its <|endoftext|> token")
    tokenizer_config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>",
        "model_max_length": 4096,
        "chat_template": (
            "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
            "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
        ),
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2))
    return eos


def hf_config(cfg: TinyConfig, eos_id: int) -> dict[str, Any]:
    """The config.json transformers expects for this tiny model."""
    arch = {"qwen3": "Qwen3ForCausalLM", "llama": "LlamaForCausalLM"}[cfg.model_type]
    return {
        "architectures": [arch],
        "model_type": cfg.model_type,
        "vocab_size": cfg.vocab_size,
        "hidden_size": cfg.hidden_size,
        "intermediate_size": cfg.intermediate_size,
        "num_hidden_layers": cfg.num_hidden_layers,
        "num_attention_heads": cfg.num_attention_heads,
        "num_key_value_heads": cfg.num_key_value_heads,
        "head_dim": cfg.head_dim,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-6,
        "rope_parameters": {"rope_type": "default", "rope_theta": cfg.rope_theta},
        "max_position_embeddings": 4096,
        "tie_word_embeddings": cfg.tie_word_embeddings,
        "attention_bias": False,
        "mlp_bias": False,
        "bos_token_id": eos_id,
        "eos_token_id": eos_id,
        "pad_token_id": eos_id,
        "dtype": "float32",
    }


def random_weights(cfg: TinyConfig) -> dict[str, torch.Tensor]:
    """Seeded HF-named tensors; norms are near 1 so activations stay in a sane range."""
    from mini_llm.config import ModelConfig
    from mini_llm.loading import hf_name_map

    model_cfg = ModelConfig.from_dict(hf_config(cfg, eos_id=0))
    gen = torch.Generator().manual_seed(cfg.seed)
    tensors = {}
    for name, target in hf_name_map(model_cfg).items():
        if len(target.shape) == 1:
            tensors[name] = 1.0 + 0.1 * torch.randn(target.shape, generator=gen)
        else:
            tensors[name] = cfg.init_std * torch.randn(target.shape, generator=gen)
    return tensors


def write_tiny_checkpoint(folder: str | Path, cfg: TinyConfig | None = None) -> Path:
    """Write config.json, model.safetensors and tokenizer files for `cfg` into `folder`."""
    cfg = cfg or TinyConfig()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    eos = write_tokenizer(folder, cfg.vocab_size)
    (folder / "config.json").write_text(json.dumps(hf_config(cfg, eos), indent=2))
    save_file(random_weights(cfg), str(folder / "model.safetensors"), metadata={"format": "pt"})
    (folder / "generation_config.json").write_text(
        json.dumps({"bos_token_id": eos, "eos_token_id": eos, "do_sample": False})
    )
    for file in folder.iterdir():  # safetensors writes 0600; a sandboxed job reads these
        file.chmod(0o644)
    return folder


def load_reference(folder: str | Path, dtype: torch.dtype = torch.float32) -> torch.nn.Module:
    """transformers' Qwen3ForCausalLM or LlamaForCausalLM on the same folder: the test oracle."""
    from transformers import AutoModelForCausalLM

    model: torch.nn.Module = AutoModelForCausalLM.from_pretrained(
        folder, dtype=dtype, local_files_only=True
    )
    return model.eval()


@torch.no_grad()
def reference_greedy(model: torch.nn.Module, prompt: list[int], max_new_tokens: int) -> list[int]:
    """transformers' own greedy generate (stopping at the config's eos); the new tokens only."""
    ids = torch.tensor([prompt])
    out = model.generate(  # type: ignore[operator]
        ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens, do_sample=False
    )
    return list(out[0, len(prompt) :].tolist())
