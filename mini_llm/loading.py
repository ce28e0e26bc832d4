"""Loading Hugging Face checkpoints: an explicit name map with a shape check per tensor.

The map names the model's parameters by their paths ("layers.0.attn.wqkv.weight"), so this
module never imports the model: `Transformer.from_pretrained` opens a checkpoint here (every
name checked, nothing read), builds the model from its config and has the weights copied in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import safe_open
from torch import nn

from mini_llm.config import ModelConfig
from mini_llm.errors import (
    CheckpointNotFoundError,
    MissingWeightError,
    UnexpectedWeightError,
    WeightError,
    WeightShapeError,
)

# Tensors some exporters write that carry no weights (RoPE frequencies are recomputed).
IGNORED_SUFFIXES = ("rotary_emb.inv_freq",)


@dataclass(frozen=True, slots=True)
class Target:
    """Where one HF tensor goes: our parameter, the first column it fills, its HF shape.

    HF stores a linear layer's weight (out, in); our Linear stores (in, out), so a 2-D HF
    weight is transposed into columns [col, col + out) of our matrix. The embedding and the
    norm weights are copied as they are (col 0, `linear=False`).
    """

    param: str
    col: int
    shape: tuple[int, ...]
    linear: bool = True


def _copied(param: str, *shape: int) -> Target:
    """A tensor copied as it is: the embedding and the norm weights."""
    return Target(param, 0, shape, linear=False)


def _columns(param: str, col: int, out_features: int, in_features: int) -> Target:
    """An HF (out, in) linear weight, transposed into columns col... of our (in, out) matrix."""
    return Target(param, col, (out_features, in_features))


def hf_name_map(cfg: ModelConfig) -> dict[str, Target]:
    """Every tensor an HF checkpoint of this config holds, mapped to our parameters.

    q/k/v land in column ranges of the fused `wqkv` matrix, gate/up in `w_gate_up`.
    """
    D, inter, hd, V = cfg.hidden_size, cfg.intermediate_size, cfg.head_dim, cfg.vocab_size
    q, kv = cfg.q_size, cfg.kv_size
    names = {
        "model.embed_tokens.weight": _copied("embed.weight", V, D),
        "model.norm.weight": _copied("norm.weight", D),
    }
    if not cfg.tie_word_embeddings:
        names["lm_head.weight"] = _columns("lm_head.weight", 0, V, D)
    for i in range(cfg.num_hidden_layers):
        hf, ours = f"model.layers.{i}.", f"layers.{i}."
        qkv, gate_up = ours + "attn.wqkv.weight", ours + "mlp.w_gate_up.weight"
        names |= {
            hf + "input_layernorm.weight": _copied(ours + "attn_norm.weight", D),
            hf + "post_attention_layernorm.weight": _copied(ours + "mlp_norm.weight", D),
            hf + "self_attn.q_proj.weight": _columns(qkv, 0, q, D),
            hf + "self_attn.k_proj.weight": _columns(qkv, q, kv, D),
            hf + "self_attn.v_proj.weight": _columns(qkv, q + kv, kv, D),
            hf + "self_attn.o_proj.weight": _columns(ours + "attn.wo.weight", 0, D, q),
            hf + "mlp.gate_proj.weight": _columns(gate_up, 0, inter, D),
            hf + "mlp.up_proj.weight": _columns(gate_up, inter, inter, D),
            hf + "mlp.down_proj.weight": _columns(ours + "mlp.w_down.weight", 0, D, inter),
        }
        if cfg.qk_norm:
            names[hf + "self_attn.q_norm.weight"] = _copied(ours + "attn.q_norm.weight", hd)
            names[hf + "self_attn.k_norm.weight"] = _copied(ours + "attn.k_norm.weight", hd)
    return names


def weight_files(folder: Path) -> dict[str, Path]:
    """Map each tensor name to the safetensors file holding it (single file or sharded index)."""
    single, index = folder / "model.safetensors", folder / "model.safetensors.index.json"
    if index.is_file():
        weight_map = json.loads(index.read_text(encoding="utf-8")).get("weight_map")
        if not isinstance(weight_map, dict):
            raise WeightError(f"{index} has no 'weight_map' object")
        files = {name: folder / shard for name, shard in weight_map.items()}
        for shard in set(files.values()):
            if not shard.is_file():
                raise CheckpointNotFoundError(f"shard {shard} listed in {index} does not exist")
        return files
    if single.is_file():
        with safe_open(single, framework="pt") as f:
            return dict.fromkeys(f.keys(), single)
    raise CheckpointNotFoundError(
        f"no model.safetensors or model.safetensors.index.json in {folder}"
    )


def check_names(expected: dict[str, Target], found: dict[str, Path], cfg: ModelConfig) -> None:
    """Raise unless the files hold exactly the tensors the config implies."""
    missing = sorted(set(expected) - set(found))
    if missing:
        raise MissingWeightError(f"checkpoint lacks {len(missing)} tensor(s), first: {missing[0]}")
    extra = sorted(
        n
        for n in set(found) - set(expected)
        if not n.endswith(IGNORED_SUFFIXES)
        # A tied checkpoint may still carry a copy of the embedding as lm_head.
        and not (n == "lm_head.weight" and cfg.tie_word_embeddings)
    )
    if extra:
        raise UnexpectedWeightError(
            f"{found[extra[0]]} holds tensor {extra[0]!r}, which a {cfg.model_type} model with "
            f"this config does not have ({len(extra)} unexpected in all)"
        )


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A local HF folder whose tensor names match its config.json; no tensor read yet."""

    folder: Path
    cfg: ModelConfig
    targets: dict[str, Target]  # HF tensor name -> where it goes
    files: dict[str, Path]  # HF tensor name -> the safetensors file holding it


def open_checkpoint(path: str | Path) -> Checkpoint:
    """Read config.json and the tensor names, and check them against each other."""
    folder = Path(path)
    if not folder.is_dir():
        raise CheckpointNotFoundError(f"checkpoint folder {folder} does not exist")
    cfg = ModelConfig.from_file(folder / "config.json")
    targets, files = hf_name_map(cfg), weight_files(folder)
    check_names(targets, files, cfg)
    return Checkpoint(folder, cfg, targets, files)


def load_weights(model: nn.Module, checkpoint: Checkpoint) -> None:
    """Copy every tensor of the checkpoint into the model's parameters, checking its shape."""
    params = dict(model.named_parameters())
    by_file: dict[Path, list[str]] = {}
    for name in checkpoint.targets:
        by_file.setdefault(checkpoint.files[name], []).append(name)
    with torch.no_grad():
        for file, names in by_file.items():
            with safe_open(file, framework="pt") as f:
                for name in names:
                    _copy_tensor(f.get_tensor(name), checkpoint.targets[name], params, name, file)
        if checkpoint.cfg.tie_word_embeddings:  # the output projection is the embedding matrix
            params["lm_head.weight"].copy_(params["embed.weight"].t())


def _copy_tensor(
    tensor: torch.Tensor,
    target: Target,
    params: dict[str, torch.nn.Parameter],
    name: str,
    file: Path,
) -> None:
    if tuple(tensor.shape) != target.shape:
        raise WeightShapeError(
            f"tensor {name!r} in {file} has shape {tuple(tensor.shape)}, "
            f"expected {target.shape} from config.json"
        )
    param = params[target.param]
    if target.linear:
        param[:, target.col : target.col + target.shape[0]].copy_(tensor.t())
    else:
        param.copy_(tensor)
