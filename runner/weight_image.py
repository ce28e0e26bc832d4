"""The warm worker's checkpoints moved into one sealed memory file, mapped read-only.

Why: a job is two forks of the worker (runner/worker.py), and fork copies the page tables
of every private, written mapping. With the checkpoints in ordinary heap memory that was
about 1 GB of page tables per fork: 44 ms of every job's overhead on a 2-core EPYC, whatever
the problem (docs/BENCHMARKS.md). A private mapping of a file that nobody has written through
it has no pages of its own, so fork copies nothing for it; the job faults in the pages it
reads (the kernel maps them 16 at a time) and never the rest.

Isolation is unchanged: the mapping is private, so a job that writes a weight (after making
its pages writable) writes its own copy, charged to its own memory; the file is sealed
against any write, grow or shrink before a job exists, and its descriptor is closed.
"""

from __future__ import annotations

import ctypes
import fcntl
import mmap
import os
import warnings
from collections.abc import Iterable, Iterator

import torch
from torch import nn

_ALIGN = 64  # every tensor starts on a cache line, as the allocator would have placed it
_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL
_libc = ctypes.CDLL(None, use_errno=True)


class WeightImage:
    """One read-only private mapping holding every parameter and buffer of some modules."""

    def __init__(self, modules: Iterable[nn.Module]) -> None:
        slots = list(_tensor_slots(modules))
        regions: dict[int, tuple[int, torch.Tensor]] = {}  # storage address -> (offset, bytes)
        size = 0
        for _owner, _kind, _name, tensor in slots:
            storage = tensor.untyped_storage()
            if storage.data_ptr() not in regions:
                regions[storage.data_ptr()] = (size, _storage_bytes(storage))
                size += -(-storage.nbytes() // _ALIGN) * _ALIGN
        self.nbytes = max(size, _ALIGN)
        self._map = _sealed_copy(regions.values(), self.nbytes)
        with warnings.catch_warnings():
            # The mapping is read-only on purpose; torch warns that it cannot write into it.
            warnings.simplefilter("ignore", UserWarning)
            whole = torch.frombuffer(self._map, dtype=torch.uint8)
        self._address = whole.data_ptr()
        for owner, kind, name, tensor in slots:
            offset, _raw = regions[tensor.untyped_storage().data_ptr()]
            # as_strided counts its offset from the start of the whole mapping, in elements.
            start = offset // tensor.element_size() + tensor.storage_offset()
            moved = whole.view(tensor.dtype).as_strided(tensor.size(), tensor.stride(), start)
            if kind == "parameter":
                getattr(owner, name).data = moved
            else:
                owner._buffers[name] = moved

    def allow_private_writes(self) -> None:
        """In a forked job: let it write the weights, as it could before they moved here.

        The mapping is private, so a write copies the page into the job's own memory (and its
        cgroup's count); the worker and every other job keep reading the sealed file. Only
        the job's page-table flags change here, so the worker's forks stay cheap."""
        prot = mmap.PROT_READ | mmap.PROT_WRITE
        if _libc.mprotect(ctypes.c_void_p(self._address), ctypes.c_size_t(self.nbytes), prot):
            raise OSError(ctypes.get_errno(), "mprotect of the weight image failed")


def _tensor_slots(
    modules: Iterable[nn.Module],
) -> Iterator[tuple[nn.Module, str, str, torch.Tensor]]:
    """(module, "parameter" | "buffer", name, tensor) for every CPU tensor the modules hold."""
    for root in modules:
        for owner in root.modules():
            for name, param in owner._parameters.items():
                if param is not None and param.device.type == "cpu":
                    yield owner, "parameter", name, param.data
            for name, buffer in owner._buffers.items():
                if buffer is not None and buffer.device.type == "cpu":
                    yield owner, "buffer", name, buffer


def _storage_bytes(storage: torch.UntypedStorage) -> torch.Tensor:
    return torch.empty(0, dtype=torch.uint8).set_(storage)


def _sealed_copy(regions: Iterable[tuple[int, torch.Tensor]], size: int) -> mmap.mmap:
    fd = os.memfd_create("judge-weights", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size, flags=mmap.MAP_SHARED) as writable:
            target = torch.frombuffer(writable, dtype=torch.uint8)
            for offset, raw in regions:
                target[offset : offset + raw.numel()].copy_(raw)
            del target  # the buffer must be released before the mapping can close
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
        return mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
    finally:
        os.close(fd)
