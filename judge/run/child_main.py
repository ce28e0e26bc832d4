"""Entry point of a child process: apply limits, then serve (see judge.run.child)."""

from __future__ import annotations

from judge.wire import json_text


def apply_rlimits(limits: dict[str, float], tier: str, address_space: bool = True) -> None:
    """Lower this process's hard limits before any submitted code runs. A CUDA job goes
    without the address-space limit (`address_space` False): CUDA reserves about twice the
    device's memory in virtual address space, far more than it touches."""
    import resource

    mib = 1 << 20
    # Address space: the interpreter itself needs some room; torch maps far more than it touches.
    headroom = 64 * mib if tier == "browser" else 3072 * mib
    cpu = int(limits["total_time_s"]) + 1
    wanted = {
        resource.RLIMIT_CPU: cpu,
        resource.RLIMIT_FSIZE: int(limits["max_file_bytes"]),
        resource.RLIMIT_NOFILE: int(limits["max_open_files"]),
        resource.RLIMIT_CORE: 0,
    }
    if address_space:
        wanted[resource.RLIMIT_AS] = int(limits["memory_mb"]) * mib + headroom
    for which, value in wanted.items():
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        hard_value = (
            value + 1 if which == resource.RLIMIT_CPU and hard == resource.RLIM_INFINITY else value
        )
        resource.setrlimit(which, (value, hard_value))


def main(request_fd: int, result_fd: int, config: str) -> None:
    settings = json_text.loads(config)
    assert isinstance(settings, dict)  # child_config's own JSON object (judge/run/launch.py)
    apply_rlimits(settings["limits"], settings["tier"], settings.get("device", "cpu") != "cuda")
    from judge.run.child import serve

    serve(request_fd, result_fd)
