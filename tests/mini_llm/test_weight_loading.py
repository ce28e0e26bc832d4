"""Transformer.from_pretrained loads local folders and names the file/tensor when it cannot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from mini_llm import (
    CheckpointNotFoundError,
    MissingWeightError,
    Transformer,
    UnexpectedWeightError,
    UnsupportedModelError,
    WeightShapeError,
)
from mini_llm.loading import hf_name_map


@pytest.fixture
def checkpoint_copy(tiny_qwen3: Path, tmp_path: Path) -> Path:
    """A private copy of the tiny checkpoint that a test may damage."""
    return Path(shutil.copytree(tiny_qwen3, tmp_path / "ckpt"))


def rewrite_weights(folder: Path, edit: dict[str, torch.Tensor | None]) -> None:
    tensors = load_file(folder / "model.safetensors")
    for name, tensor in edit.items():
        if tensor is None:
            del tensors[name]
        else:
            tensors[name] = tensor
    save_file(tensors, str(folder / "model.safetensors"))


def test_loads_every_tensor_from_the_file(tiny_qwen3: Path) -> None:
    model = Transformer.from_pretrained(tiny_qwen3)
    hf = load_file(tiny_qwen3 / "model.safetensors")
    q = hf["model.layers.1.self_attn.q_proj.weight"]
    v = hf["model.layers.1.self_attn.v_proj.weight"]
    wqkv = model.layers[1].attn.wqkv.weight  # (in, out): HF tensors are transposed in
    assert torch.equal(wqkv[:, : q.shape[0]], q.t())
    assert torch.equal(wqkv[:, -v.shape[0] :], v.t())
    assert torch.equal(model.lm_head.weight, hf["lm_head.weight"].t())
    assert not any(p.requires_grad for p in model.parameters())
    params = dict(model.named_parameters())
    targets = hf_name_map(model.cfg)
    assert targets.keys() == hf.keys()
    for name, target in targets.items():  # every tensor, where the explicit name map says
        param = params[target.param]
        if target.linear:
            cols = param[:, target.col : target.col + target.shape[0]]
            assert torch.equal(cols, hf[name].t()), name
        else:
            assert torch.equal(param, hf[name]), name


def test_dtype_argument_converts_weights(tiny_qwen3: Path) -> None:
    model = Transformer.from_pretrained(tiny_qwen3, dtype=torch.bfloat16)
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}


def test_sharded_checkpoint_loads_like_a_single_file(checkpoint_copy: Path) -> None:
    single = Transformer.from_pretrained(checkpoint_copy)
    tensors = load_file(checkpoint_copy / "model.safetensors")
    names = sorted(tensors)
    shards = {
        "model-00001-of-00002.safetensors": names[::2],
        "model-00002-of-00002.safetensors": names[1::2],
    }
    weight_map = {}
    for shard, shard_names in shards.items():
        save_file({n: tensors[n] for n in shard_names}, str(checkpoint_copy / shard))
        weight_map |= dict.fromkeys(shard_names, shard)
    (checkpoint_copy / "model.safetensors").unlink()
    index = {"metadata": {}, "weight_map": weight_map}
    (checkpoint_copy / "model.safetensors.index.json").write_text(json.dumps(index))
    sharded = Transformer.from_pretrained(checkpoint_copy)
    ids = torch.tensor([[1, 2, 3, 4]])
    assert torch.equal(single(ids), sharded(ids))


def test_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(CheckpointNotFoundError, match="nowhere"):
        Transformer.from_pretrained(tmp_path / "nowhere")


def test_folder_without_weights_is_reported(checkpoint_copy: Path) -> None:
    (checkpoint_copy / "model.safetensors").unlink()
    with pytest.raises(CheckpointNotFoundError, match=r"model\.safetensors"):
        Transformer.from_pretrained(checkpoint_copy)


def test_unsupported_model_type_is_refused(checkpoint_copy: Path) -> None:
    config = json.loads((checkpoint_copy / "config.json").read_text())
    (checkpoint_copy / "config.json").write_text(json.dumps(config | {"model_type": "mistral"}))
    with pytest.raises(UnsupportedModelError, match="mistral"):
        Transformer.from_pretrained(checkpoint_copy)


def test_missing_tensor_is_named(checkpoint_copy: Path) -> None:
    rewrite_weights(checkpoint_copy, {"model.layers.1.self_attn.k_norm.weight": None})
    with pytest.raises(MissingWeightError, match=r"model\.layers\.1\.self_attn\.k_norm\.weight"):
        Transformer.from_pretrained(checkpoint_copy)


def test_unexpected_tensor_is_named_with_its_file(checkpoint_copy: Path) -> None:
    rewrite_weights(checkpoint_copy, {"model.layers.9.mlp.up_proj.weight": torch.zeros(2, 2)})
    with pytest.raises(UnexpectedWeightError, match=r"model\.layers\.9\.mlp\.up_proj.*") as err:
        Transformer.from_pretrained(checkpoint_copy)
    assert "model.safetensors" in str(err.value)


def test_misshaped_tensor_is_named_with_both_shapes(checkpoint_copy: Path) -> None:
    rewrite_weights(checkpoint_copy, {"model.layers.0.mlp.down_proj.weight": torch.zeros(64, 127)})
    with pytest.raises(WeightShapeError, match=r"down_proj.*\(64, 127\).*\(64, 128\)"):
        Transformer.from_pretrained(checkpoint_copy)


def test_tied_checkpoint_uses_the_embedding_as_output_matrix(tiny_checkpoint, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mini_llm.testing import TinyConfig

    folder = tiny_checkpoint(TinyConfig(tie_word_embeddings=True))
    assert "lm_head.weight" not in load_file(folder / "model.safetensors")
    model = Transformer.from_pretrained(folder)
    emb = load_file(folder / "model.safetensors")["model.embed_tokens.weight"]
    assert torch.equal(model.embed.weight, emb)
    assert torch.equal(model.lm_head.weight, emb.t())


def test_inverse_rope_frequencies_in_old_checkpoints_are_ignored(
    tiny_qwen3: Path, checkpoint_copy: Path
) -> None:
    """The stale tensor is neither refused nor used: the model is the one the clean file
    gives, tensor for tensor (buffers included) and logit for logit."""
    rewrite_weights(
        checkpoint_copy, {"model.layers.0.self_attn.rotary_emb.inv_freq": torch.ones(16)}
    )
    old = Transformer.from_pretrained(checkpoint_copy)
    clean = Transformer.from_pretrained(tiny_qwen3)
    old_state, clean_state = old.state_dict(), clean.state_dict()
    assert old_state.keys() == clean_state.keys()
    for name, tensor in clean_state.items():
        assert torch.equal(old_state[name], tensor), name
    ids = torch.tensor([[1, 2, 3, 4, 5, 6, 7, 8]])  # past position 0, where RoPE is the identity
    assert torch.equal(old(ids), clean(ids))
