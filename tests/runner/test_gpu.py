"""The GPU path: the check script runs where there is a GPU and skips cleanly where not."""

from __future__ import annotations

import pytest

from runner import gpu_check


def test_gpu_check_skips_cleanly_without_a_gpu(capsys) -> None:  # type: ignore[no-untyped-def]
    if gpu_check.gpu_nodes():
        pytest.skip("this machine has a GPU; test_gpu_path_passes runs instead")
    assert gpu_check.main([]) == 0
    assert capsys.readouterr().out.startswith("SKIP: no NVIDIA device nodes")


@pytest.mark.gpu
def test_gpu_path_passes() -> None:
    if not gpu_check.gpu_nodes():
        pytest.skip("no NVIDIA device nodes")
    results = gpu_check.run_checks()
    assert all(passed for _, _, passed in results), results
