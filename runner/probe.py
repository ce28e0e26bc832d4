"""Measure the sandbox from the inside: run a probe job through the real job path.

The probe is an ordinary submission (it gets no privileges a learner's code would not
get), so what it reports is what a submission sees: its uid, namespaces, seccomp mode,
capabilities, rlimits, the network, and which of the host's top-level folders exist.
"""

from __future__ import annotations

import os
from typing import Any

from judge.grading.outcome import Outcome, OutcomeKind
from judge.problem.cases import Case
from judge.problem.checkers import CheckSpec
from judge.problem.limits import Limits
from judge.run.session import Session

PROBE_SOURCE = r"""
import os, resource, socket

def _status():
    lines = open("/proc/self/status").read().splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line)

def _attempt(make):
    try:
        make()
        return "allowed"
    except OSError as exc:
        return f"blocked ({exc.__class__.__name__}: {exc.strerror})"

def facts():
    status = _status()
    names = ("cpu", "as", "fsize", "nofile", "core", "memlock", "nproc")
    return {
        "uid": os.getuid(),
        "pid": os.getpid(),
        "seccomp": status["Seccomp"].strip(),
        "no_new_privs": status["NoNewPrivs"].strip(),
        "cap_eff": status["CapEff"].strip(),
        "ns": {n: os.readlink(f"/proc/self/ns/{n}") for n in
               ("user", "pid", "net", "ipc", "uts", "mnt", "cgroup")},
        "rlimits": {n: resource.getrlimit(getattr(resource, "RLIMIT_" + n.upper()))[0]
                    for n in names},
        "tcp_127.0.0.1": _attempt(lambda: socket.create_connection(("127.0.0.1", 22), 1)),
        "netlink_socket": _attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)),
        "interfaces": [line.split(":")[0].strip()
                       for line in open("/proc/self/net/dev").read().splitlines()[2:]],
        "root_folders": sorted(os.listdir("/")),
        "cwd": os.getcwd(),
    }
"""
PROBE_DRIVER = "def run(sub, args):\n    return sub.facts()\n"
PROBE_LIMITS = Limits(time_per_case_s=10.0, total_time_s=20.0, memory_mb=256)


def probe(launcher: Any) -> dict[str, Any]:
    """Run the probe in a sandboxed job; returns its facts, or {'error': ...}."""
    handle = launcher.launch_tier("browser", PROBE_LIMITS)
    try:
        load: dict[str, object] = {
            "type": "load",
            "source": PROBE_SOURCE,
            "driver": PROBE_DRIVER,
            "names": ["facts"],
        }
        case = Case("probe", {}, CheckSpec(), public=True)
        seen: list[Outcome] = []
        result = Session(handle, PROBE_LIMITS, "browser").run(
            load, [case], on_outcome=lambda _case, outcome: seen.append(outcome)
        )
    finally:
        handle.cleanup()
    outcome = seen[0] if seen else result.outcomes[0]
    if (
        result.load_error
        or outcome.kind is not OutcomeKind.RESULT
        or not isinstance(outcome.observation, dict)
    ):
        detail = result.load_error or outcome.message or result.stderr.decode(errors="replace")
        return {"error": f"probe job failed: {detail}"}
    facts: dict[str, Any] = outcome.observation
    facts["host_ns"] = {n: os.readlink(f"/proc/self/ns/{n}") for n in facts["ns"]}
    return facts
