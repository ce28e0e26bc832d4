"""`judge runner doctor`: which protections are active on this host, measured, not assumed."""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

from runner.cgroups import detect
from runner.identity import sandbox_identity
from runner.layout import GPU_NODE_PATTERNS

EXIT_OK, EXIT_MISSING = 0, 1
NAMESPACES = ("user", "pid", "net", "ipc", "uts", "mnt", "cgroup")
REQUIRED_FOR_SERVER = ("user", "pid", "net", "mnt")


def collect() -> dict[str, Any]:
    """Everything doctor reports, as data (also what `--json` prints)."""
    report: dict[str, Any] = {"bwrap": _bwrap_version()}
    identity = sandbox_identity()
    report["identity"] = {
        "user": identity.name,
        "uid": identity.uid,
        "switched_from_root": identity.switched,
    }
    cgroups = detect()
    report["cgroups"] = {
        "version": cgroups.version,
        "controllers": list(cgroups.controllers),
        "note": cgroups.reason,
        "pause": cgroups.freezer,
    }
    report["gpu_nodes"] = sorted(n for pattern in GPU_NODE_PATTERNS for n in glob.glob(pattern))
    report["device_memory"] = device_memory_line(report["gpu_nodes"])
    if report["bwrap"] is None:
        report["probe"] = {"error": "bubblewrap (bwrap) is not installed"}
        return report
    from runner.launchers.sandbox import SandboxLauncher
    from runner.probe import probe

    launcher = SandboxLauncher(pool_size=0)
    try:
        report["probe"] = probe(launcher)
    except Exception as exc:  # doctor reports a broken sandbox; it never hides it
        report["probe"] = {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        launcher.close()
    return report


def server_ready(report: dict[str, Any]) -> bool:
    """The server refuses to judge unless jobs run in their own user/pid/net/mount namespaces."""
    facts = report.get("probe", {})
    if "error" in facts:
        return False
    isolated = [n for n in NAMESPACES if facts["ns"][n] != facts["host_ns"][n]]
    return set(REQUIRED_FOR_SERVER) <= set(isolated) and facts["uid"] != 0


def render(report: dict[str, Any]) -> list[str]:
    lines = [f"bubblewrap          {report['bwrap'] or 'MISSING'}"]
    ident = report["identity"]
    switched = "root switches jobs to it" if ident["switched_from_root"] else "runner's own user"
    lines.append(f"job user            {ident['user']} (uid {ident['uid']}; {switched})")
    cg = report["cgroups"]
    lines.append(f"cgroups             {cg['note']}")
    lines.append(f"pausing a job       {cg.get('pause', 'unknown')}")
    facts = report["probe"]
    if "error" in facts:
        lines.append(f"sandbox probe       FAILED: {facts['error']}")
        return lines
    for name in NAMESPACES:
        own = facts["ns"][name] != facts["host_ns"][name]
        lines.append(f"{name + ' namespace':<20}{'own' if own else 'SHARED with the runner'}")
    seccomp = {"0": "off", "1": "strict", "2": "filter"}.get(facts["seccomp"], facts["seccomp"])
    lines.append(f"seccomp             {seccomp}")
    lines.append(f"no_new_privs        {'on' if facts['no_new_privs'] == '1' else 'off'}")
    caps = "none" if int(facts["cap_eff"], 16) == 0 else facts["cap_eff"]
    lines.append(f"capabilities        {caps}")
    lines.append(f"uid inside job      {facts['uid']}")
    limits = ", ".join(f"{k}={_limit(v)}" for k, v in facts["rlimits"].items())
    lines.append(f"rlimits             {limits}")
    lines.append(f"network             interfaces {facts['interfaces']}")
    lines.append(f"  tcp 127.0.0.1:22  {facts['tcp_127.0.0.1']}")
    lines.append(f"  netlink socket    {facts['netlink_socket']}")
    lines.append(f"visible /           {' '.join(facts['root_folders'])}")
    gpus = " ".join(report["gpu_nodes"]) or "none (CPU only; no address-space limit change)"
    lines.append(f"GPU device nodes    {gpus}")
    lines.append(f"GPU device memory   {report['device_memory']}")
    verdict = "ready" if server_ready(report) else "NOT ready (jobs would share namespaces)"
    lines.append(f"server mode         {verdict}")
    return lines


def device_memory_line(gpu_nodes: list[str]) -> str:
    """Whether a GPU job's device memory is watched here (runner/device_memory.py), and why not."""
    from runner.device_memory import watch_status
    from runner.nvml import NvmlMissing, open_nvml

    if not any(n.startswith("/dev/nvidia") for n in gpu_nodes):
        return watch_status(NvmlMissing("no NVIDIA device nodes here (no GPU jobs)"))
    return watch_status(open_nvml())


def _limit(value: int) -> str:
    return "unlimited" if value < 0 else str(value)


def _bwrap_version() -> str | None:
    path = shutil.which("bwrap")
    if path is None:
        return None
    done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge runner doctor", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(list(argv or []))
    report = collect()
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print("\n".join(render(report)))
    if os.geteuid() == 0 and report["identity"]["uid"] == 0:
        return EXIT_MISSING
    return EXIT_OK if server_ready(report) else EXIT_MISSING
