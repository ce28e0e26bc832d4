"""Jobs forked from one warm worker cannot reach each other (hostile rows 38 and 39).

Every test here runs two or more jobs through the *same* warm worker (the suite's shared
launcher has one), the first hostile, the next ones normal, and asserts that nothing the
first left anywhere reaches the next. The `harness` fixture adds its own checks (a normal
submission is AC afterwards, no process or cgroup of any job is left, no file outside
the sandbox changed).

Pins the red-team finding of issue 10: the worker's root, /etc, /opt, /opt/judge (the
first entry of sys.path) and /dev were writable tmpfs shared by all its jobs, so one job
could plant a stdlib module for the next, copy a later job's source into /dev, or park
memory there that outlived it.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import uuid

from judge.verdict import Verdict

# Every place outside the job's own scratch mounts where a write could outlive the job.
_SITE = f"/opt/venv/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
SHARED_PLACES = (
    "/", "/etc", "/opt", "/opt/judge", "/opt/judge/judge", "/opt/judge/mini_llm", "/dev",
    "/dev/pts", "/usr", _SITE,
)  # fmt: skip
# The job's own scratch space: writable, fresh and empty in every job.
OWN_PLACES = ("/tmp", "/dev/shm", "/box")


def _report_json(report) -> dict:
    line = next(x for x in report.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line.removeprefix("REPORT "))


def test_a_job_can_write_nothing_outside_its_own_scratch_space(harness):
    """The root, /etc, /opt, the code directory and /dev are read-only to a job."""
    marker = uuid.uuid4().hex
    report = harness.judge(
        f"""
        import json, os
        wrote = []
        for place in {SHARED_PLACES!r}:
            try:
                with open(os.path.join(place, "{marker}"), "w") as f:
                    f.write("planted")
                wrote.append(place)
            except OSError:
                pass
            try:
                os.mkdir(os.path.join(place, "d{marker}"))
                wrote.append(place + " (mkdir)")
            except OSError:
                pass
        print("REPORT " + json.dumps({{"wrote": wrote}}))
        def add(a, b):
            return a + b
        """
    )
    assert report.verdict is Verdict.AC, report.to_dict()
    assert _report_json(report)["wrote"] == []


def test_files_planted_anywhere_are_not_seen_by_the_next_job(harness):
    """Plant in every place a job might write, then collect from a second job."""
    marker = uuid.uuid4().hex
    places = SHARED_PLACES + OWN_PLACES
    plant = harness.judge(
        f"""
        import os
        for place in {places!r}:
            try:
                with open(os.path.join(place, "{marker}"), "w") as f:
                    f.write("planted")
            except OSError:
                pass
        def add(a, b):
            return a + b
        """
    )
    assert plant.verdict is Verdict.AC
    collect = harness.judge(
        f"""
        import json, os
        seen = [p for p in {places!r} if os.path.exists(os.path.join(p, "{marker}"))]
        print("REPORT " + json.dumps({{"seen": seen}}))
        def add(a, b):
            return a + b
        """
    )
    assert collect.verdict is Verdict.AC
    assert _report_json(collect)["seen"] == []


def test_a_shadowed_stdlib_module_never_reaches_the_next_job(harness):
    """A `fractions.py` planted on any sys.path entry must not be imported by a later job."""
    plant = harness.judge(
        """
        import sys
        evil = "def Fraction(*a):\\n    return 0\\n"
        for entry in sys.path:
            for name in ("fractions.py", "sitecustomize.py"):
                try:
                    with open(f"{entry or '.'}/{name}", "w") as f:
                        f.write(evil)
                except OSError:
                    pass
        def add(a, b):
            return a + b
        """
    )
    assert plant.verdict is Verdict.AC
    victim = harness.judge(
        """
        from fractions import Fraction
        def add(a, b):
            return int(Fraction(a) + Fraction(b))
        """
    )
    assert victim.verdict is Verdict.AC, victim.to_dict()


def test_renaming_or_replacing_the_code_directory_fails_and_changes_nothing(harness):
    report = harness.judge(
        """
        import json, os
        tried = {}
        for old, new in (("/opt/judge", "/opt/gone"), ("/opt/judge/judge", "/opt/judge/x"),
                         ("/opt/venv", "/opt/venv2"), ("/etc", "/etc2")):
            try:
                os.rename(old, new)
                tried[old] = "renamed"
            except OSError as exc:
                tried[old] = exc.__class__.__name__
        print("REPORT " + json.dumps(tried))
        def add(a, b):
            return a + b
        """
    )
    assert "renamed" not in _report_json(report).values()
    after = harness.judge("import judge.run.child\ndef add(a, b):\n    return a + b\n")
    assert after.verdict is Verdict.AC


def test_a_later_job_cannot_read_an_earlier_jobs_source(harness):
    """The attack chain of the report: a job copies its own source (found through its
    loaded module) where the next job can read it. The next job must find nothing."""
    secret = uuid.uuid4().hex
    victim = harness.judge(
        f"""
        import glob, shutil, sys
        SECRET = "{secret}"
        for target in ("/dev", "/", "/etc", "/opt", "/tmp", "/dev/shm"):
            try:
                with open(target + "/copied.py", "w") as f:
                    f.write("SECRET = " + repr(SECRET))
            except OSError:
                pass
        def add(a, b):
            return a + b
        """
    )
    assert victim.verdict is Verdict.AC
    thief = harness.judge(
        f"""
        import json, os, sys
        found = []
        # Read-only binds of installed code are skipped: too big to read in a case's time.
        skip = ("/proc", "/sys", "/usr", "/lib", "/opt/venv", sys.base_prefix)
        for top in ("/", "/dev", "/etc", "/opt", "/tmp", "/dev/shm", "/box"):
            for root, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if not os.path.join(root, d).startswith(skip)]
                for name in files:
                    path = os.path.join(root, name)
                    if not os.path.isfile(path) or os.path.islink(path):
                        continue  # device nodes and /dev/fd links could block a read
                    try:
                        with open(path, "rb") as f:
                            if b"{secret}" in f.read(1 << 16):
                                found.append(path)
                    except OSError:
                        pass
        print("REPORT " + json.dumps(found))
        def add(a, b):
            return a + b
        """
    )
    assert _report_json(thief) == []


def _still_reachable(marker: str, places: tuple[str, ...]) -> list[str]:
    """Every way a process on the host can still reach a file named `marker`: through its
    root, in one of the places (a job's scratch mount that outlived it, or one propagated
    to the host), or through a descriptor it holds open (a deleted file's memory stays
    allocated while one does). Looks only for this job's own files, so what other jobs on
    the machine do meanwhile (host-wide Shmem moves by tens of MB) cannot blur the answer."""
    found = []
    for proc in glob.glob("/proc/[0-9]*"):
        for place in places:
            path = f"{proc}/root{place}/{marker}"
            try:
                if os.path.lexists(path):
                    found.append(path)
            except OSError:  # the process is gone, or not ours to look into
                pass
        try:
            descriptors = os.listdir(f"{proc}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                target = os.readlink(f"{proc}/fd/{fd}")
            except OSError:
                continue
            if marker in target:
                found.append(f"{proc}/fd/{fd} -> {target}")
    return found


def test_memory_parked_in_any_writable_filesystem_does_not_outlive_the_job(harness):
    """Fill every place a job can write; once it has finished, no process on the host can
    reach what it wrote (so its memory is back), and the next job finds its own scratch
    space empty."""
    marker = f"parked-{uuid.uuid4().hex}"
    places = SHARED_PLACES + OWN_PLACES
    park = harness.judge(
        f"""
        import json, os
        parked = {{}}
        chunk = b"p" * (1 << 20)
        held = []
        for place in {places!r}:
            written = 0
            try:
                with open(os.path.join(place, "{marker}"), "wb") as f:
                    for _ in range(24):
                        f.write(chunk)
                        f.flush()
                        written += 1
                held.append(open(os.path.join(place, "{marker}"), "rb"))
            except OSError:
                pass
            parked[place] = written
        print("REPORT " + json.dumps(parked))
        def add(a, b):
            return a + b
        """
    )
    parked = _report_json(park)
    assert all(parked[p] == 0 for p in SHARED_PLACES), parked
    total_mb = sum(parked.values())
    assert total_mb >= 3 * 8, "the job could not use its own scratch space"
    assert _still_reachable(marker, places) == []
    probe = harness.judge(
        f"""
        import json, os
        used = {{p: os.listdir(p) for p in {OWN_PLACES!r}}}
        print("REPORT " + json.dumps(used))
        def add(a, b):
            return a + b
        """
    )
    assert _report_json(probe) == {p: [] for p in OWN_PLACES}


def test_a_job_holds_no_descriptor_but_its_own_pipes(harness):
    """In particular not the cgroup task files its pid 1 moved itself in with: written with
    the runner's credentials, one would let a job move any process into its cgroup."""
    report = harness.judge(
        """
        import json, os
        fds = {}
        for name in os.listdir("/proc/self/fd"):
            try:
                fds[name] = os.readlink(f"/proc/self/fd/{name}")
            except OSError:
                pass
        print("REPORT " + json.dumps(fds))
        def add(a, b):
            return a + b
        """
    )
    fds = _report_json(report)
    assert not any("cgroup" in target or "tasks" in target for target in fds.values()), fds
    assert {int(n) for n in fds} <= {0, 1, 2, 3, 4, 5, 6}, fds  # 5/6: the listing itself
