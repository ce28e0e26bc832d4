"""A warm worker's checkpoints in one sealed, read-only file mapping (runner/weight_image.py)."""

from __future__ import annotations

import faulthandler
import os
from collections.abc import Callable

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from mini_llm import zoo  # noqa: E402
from mini_llm.model import Transformer  # noqa: E402
from runner.weight_image import WeightImage  # noqa: E402


def _in_child(action: Callable[[], int]) -> int:
    """Run `action` in a forked child; its exit status as waitstatus_to_exitcode gives it."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            code = action()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


class _Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(4, 3)
        self.b.weight = self.a.weight  # one tensor under two names
        self.register_buffer("table", torch.arange(6.0).reshape(2, 3)[:, 1:])  # a strided view


@pytest.fixture
def single_thread() -> None:
    # Forked children run torch ops; an OpenMP pool started here would not survive the fork.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_a_checkpoint_moved_into_the_image_computes_bit_for_bit_the_same(single_thread) -> None:
    # A copy of its own: the zoo's shared model must stay writable for other tests here.
    model = Transformer.from_pretrained(zoo.folder("qwen3-gqa"))
    ids = torch.tensor([[1, 5, 9, 200]])
    before = model(ids)
    WeightImage([model])
    assert torch.equal(model(ids), before)


def test_tensors_that_shared_memory_still_share_it_and_views_keep_their_shape() -> None:
    module = _Tied()
    table = module.table.clone()
    WeightImage([module])
    assert module.a.weight.data_ptr() == module.b.weight.data_ptr()
    assert torch.equal(module.table, table)
    assert isinstance(module.a.weight, nn.Parameter)


def test_the_weights_live_in_a_read_only_private_mapping_of_a_memory_file() -> None:
    module = _Tied()
    WeightImage([module])
    address = module.a.weight.data_ptr()
    with open("/proc/self/maps") as maps:
        lines = maps.read().splitlines()
    for line in lines:
        span, perms, *_rest = line.split()
        start, end = (int(x, 16) for x in span.split("-"))
        if start <= address < end:
            assert perms == "r--p", line
            assert "memfd:judge-weights" in line
            return
    pytest.fail("the weights are not in any mapping")


def test_a_job_that_did_not_ask_cannot_write_a_weight(single_thread) -> None:
    module = _Tied()
    WeightImage([module])

    def write() -> int:
        faulthandler.disable()  # the crash is the expected outcome: no traceback dump
        module.a.weight.data.add_(1.0)
        return 0

    assert _in_child(write) == -11  # SIGSEGV: the page is read-only


def test_a_jobs_writes_stay_its_own_and_the_worker_keeps_the_original(single_thread) -> None:
    module = _Tied()
    image = WeightImage([module])
    original = module.a.weight.detach().clone()

    def write() -> int:
        image.allow_private_writes()
        module.a.weight.data.add_(1.0)
        return 0 if torch.equal(module.a.weight, original + 1.0) else 1

    assert _in_child(write) == 0
    assert torch.equal(module.a.weight, original)
    assert _in_child(write) == 0  # the next job starts from the original again
