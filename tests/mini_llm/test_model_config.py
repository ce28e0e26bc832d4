"""ModelConfig parses Qwen3 and Llama config.json files and rejects what it cannot run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mini_llm import CheckpointNotFoundError, ConfigError, ModelConfig, UnsupportedModelError


def qwen3_raw(**overrides: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "model_type": "qwen3",
        "vocab_size": 100,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "rms_norm_eps": 1e-6,
        "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
        "tie_word_embeddings": True,
        "eos_token_id": [5, 7],
    }
    return raw | overrides


def test_rope_theta_is_read_from_rope_parameters() -> None:
    assert ModelConfig.from_dict(qwen3_raw()).rope_theta == 1e6


def test_top_level_rope_theta_is_read_too() -> None:
    raw = qwen3_raw(rope_theta=5000.0)
    del raw["rope_parameters"]
    assert ModelConfig.from_dict(raw).rope_theta == 5000.0


def test_explicit_head_dim_may_differ_from_hidden_over_heads() -> None:
    cfg = ModelConfig.from_dict(qwen3_raw())
    assert (cfg.head_dim, cfg.q_size, cfg.kv_size) == (32, 128, 64)


def test_llama_without_head_dim_derives_it_and_has_no_qk_norm() -> None:
    raw = qwen3_raw(model_type="llama")
    del raw["head_dim"]
    cfg = ModelConfig.from_dict(raw)
    assert cfg.head_dim == 16 and not cfg.qk_norm


def test_eos_ids_become_a_tuple() -> None:
    assert ModelConfig.from_dict(qwen3_raw()).eos_token_ids == (5, 7)
    assert ModelConfig.from_dict(qwen3_raw(eos_token_id=3)).eos_token_ids == (3,)


def test_unsupported_model_type_is_named_in_the_error() -> None:
    with pytest.raises(UnsupportedModelError, match="'gpt2'"):
        ModelConfig.from_dict(qwen3_raw(model_type="gpt2"))


@pytest.mark.parametrize(
    "overrides",
    [
        {"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0}},
        {"hidden_act": "gelu"},
        {"attention_bias": True},
        {"use_sliding_window": True},
    ],
)
def test_unsupported_features_are_refused(overrides: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedModelError):
        ModelConfig.from_dict(qwen3_raw(**overrides))


def test_missing_required_field_is_named() -> None:
    raw = qwen3_raw()
    del raw["hidden_size"]
    with pytest.raises(ConfigError, match="hidden_size"):
        ModelConfig.from_dict(raw)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"num_key_value_heads": 3}, "multiple"),
        ({"hidden_size": 0}, "hidden_size"),
        ({"head_dim": 15}, "even"),
        ({"vocab_size": "100"}, "vocab_size"),
    ],
)
def test_inconsistent_values_are_refused(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ModelConfig.from_dict(qwen3_raw(**overrides))


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(CheckpointNotFoundError, match=r"config\.json"):
        ModelConfig.from_file(tmp_path / "config.json")


def test_config_that_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        ModelConfig.from_file(tmp_path / "config.json")


def test_config_file_round_trip(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(qwen3_raw()))
    assert ModelConfig.from_file(tmp_path / "config.json").num_key_value_heads == 2
