"""Resource limits for one run of a submission."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    time_per_case_s: float
    total_time_s: float
    memory_mb: int
    output_bytes: int = 1 << 20  # cap per stream (stdout, stderr)
    max_processes: int = 64
    max_file_bytes: int = 16 << 20
    max_open_files: int = 256

    def to_dict(self) -> dict[str, object]:
        return {
            "time_per_case_s": self.time_per_case_s,
            "total_time_s": self.total_time_s,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
        }
