"""zoo.model(name, device=...): the CPU checkpoint is shared; another device gets a copy made
in the process that asks (a job), never by moving the shared model, and never in a process
that did not ask (a warm worker must not touch CUDA before it forks jobs)."""

from __future__ import annotations

import pytest
import torch

from mini_llm import zoo

NAME = "qwen3-gqa"


@pytest.fixture(scope="module")
def checkpoint() -> str:
    try:
        zoo.folder(NAME)
    except zoo.CheckpointNotFoundError:
        pytest.skip("the zoo's checkpoints are not built (make models)")
    return NAME


def test_the_cpu_model_is_shared_and_asking_for_it_touches_no_gpu(checkpoint: str) -> None:
    assert zoo.model(checkpoint) is zoo.model(checkpoint, device="cpu")
    assert not torch.cuda.is_initialized()


def test_a_copy_on_another_device_leaves_the_shared_model_where_it_was(checkpoint: str) -> None:
    """Moved with .to(), the shared model would change under every later caller."""
    shared = zoo.model(checkpoint)
    copy = zoo.moved(shared, "cpu")  # the path a CUDA copy takes, on the CPU
    assert copy is not shared and not copy.training
    assert all(not p.requires_grad for p in copy.parameters())
    pairs = zip(shared.state_dict().items(), copy.state_dict().items(), strict=True)
    for (name, a), (_, b) in pairs:
        assert torch.equal(a, b) and a.data_ptr() != b.data_ptr(), name
    ids = torch.tensor([[5, 900, 14, 77]])
    with torch.inference_mode():
        assert torch.equal(copy(ids), shared(ids))
    assert shared.lm_head.weight.device.type == "cpu"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_cuda_copy_is_made_once_and_computes_what_the_cpu_does(checkpoint: str) -> None:
    gpu = zoo.model(checkpoint, device="cuda")
    assert gpu is zoo.model(checkpoint, device="cuda")
    assert gpu.lm_head.weight.device.type == "cuda"
    assert zoo.model(checkpoint).lm_head.weight.device.type == "cpu"
    ids = torch.tensor([[5, 900, 14, 77]])
    with torch.inference_mode():
        drift = (gpu(ids.cuda()).cpu() - zoo.model(checkpoint)(ids)).abs().max().item()
    assert drift < 1e-4
