"""The GPU's own copy bandwidth, measured in a trusted process of its own.

A CUDA speed run's ceiling (judge/problem/speed_spec.py) comes from this, not from the
CPU's memcpy: a device reads its memory an order of magnitude faster. The parent never
creates a CUDA context for it (a context would hold device memory for as long as the
judge lives, and a forked warm worker must never inherit one): it starts a child of its
own, the judge's code and not a submission's, which copies a buffer on the
device several times and prints one JSON line with the median.

The child's program is text (PROGRAM) run with `python -c`: the core imports nothing but
the standard library (it also runs in Pyodide), and only that child, on a CUDA host,
imports torch.
"""

from __future__ import annotations

import json
import subprocess
import sys

COPIES = 9
BUFFER_BYTES = 256 << 20  # far larger than any GPU's L2 cache: the copy reaches device memory
TIMEOUT_S = 120.0


class DeviceCopyFailed(RuntimeError):
    """The measuring child failed or printed something else (the message says what)."""


def measure_device_copy_bandwidth() -> float:
    """Bytes per second (read and write counted) of the median device-to-device copy on
    CUDA device 0, measured by a child process; raises DeviceCopyFailed."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", PROGRAM],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeviceCopyFailed(f"the device copy could not be measured: {exc}") from None
    return parse_measurement(done.returncode, done.stdout, done.stderr)


def parse_measurement(returncode: int, stdout: str, stderr: str) -> float:
    """The figure from the child's last line, checked; DeviceCopyFailed says why not."""
    if returncode != 0:
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        raise DeviceCopyFailed(f"the device copy exited with {returncode}: {tail[0]}")
    try:
        rate = json.loads(stdout.strip().splitlines()[-1])["bytes_per_s"]
    except (IndexError, ValueError, KeyError, TypeError):
        raise DeviceCopyFailed(f"the device copy printed {stdout[-200:]!r}") from None
    if type(rate) is not float or not rate > 0:
        raise DeviceCopyFailed(f"the device copy measured {rate!r}")
    return rate


PROGRAM = f"""
import json, statistics, torch
source = torch.randint(0, 256, ({BUFFER_BYTES},), dtype=torch.uint8, device="cuda")
target = torch.empty_like(source)
target.copy_(source)  # the first copy pays for lazy set-up: untimed
seconds = []
for _ in range({COPIES}):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    target.copy_(source)
    end.record()
    end.synchronize()
    seconds.append(start.elapsed_time(end) / 1000)
rate = 2 * {BUFFER_BYTES} / statistics.median(seconds)
print(json.dumps({{"bytes_per_s": float(rate), "copies": {COPIES}, "seconds": seconds}}))
"""
