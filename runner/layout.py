"""What a worker's sandbox can see, and the bubblewrap command line that builds it.

Binds, all read-only: /usr (with the merged-usr symlinks), /etc/ld.so.cache, the
Python installation at its own path (the venv's pyvenv.cfg names it), the virtual
environment at /opt/venv with only the packages a job may import in its site-packages
(torch and what it requires, numpy, safetensors, pyseccomp: not transformers, whose caches,
attention and generate would do a torch-tier exercise for it, nor the web app's packages),
and the repository's judge/, runner/ and mini_llm/ under /opt/judge. Never the whole
root, never problems/ (hidden cases and reference.py stay outside; the public cases.py
travels in the `load` message), never /home, /root or /etc beyond the loader cache.
Fresh: /proc, a minimal /dev, a size-limited /tmp, and empty mount points /box (the job
directory) and /dev/shm that each job covers with its own tmpfs. The new root and /dev
are remounted read-only once built, so the only writable places a job has are the tmpfs
mounts it gets for itself.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import importlib.metadata
import os
import re
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from runner.identity import SandboxIdentity
from runner.jobspace import JOB_DIR, SANDBOX_CODE

REPO_ROOT = Path(__file__).resolve().parent.parent
SANDBOX_VENV = "/opt/venv"
# Covered by fresh mounts in every sandbox or job: a bind below them would be hidden.
SCRATCH_MOUNTS = ("/tmp", "/dev", "/proc", JOB_DIR)
CODE_PACKAGES = ("judge", "runner", "mini_llm")
# The checkpoints torch-tier problems run on (mini_llm.zoo finds them beside mini_llm/).
MODELS_FOLDER = "models"
MIRROR_ROOT = Path("/var/lib/judge-runner/mirror")
GPU_NODE_PATTERNS = ("/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/renderD*")
# What of the virtual environment's site-packages the sandbox holds: these distributions and
# every one they require (a CUDA build of torch brings its nvidia-* and triton that way).
JOB_DISTRIBUTIONS = ("torch", "numpy", "safetensors", "pyseccomp")
_WORKER_CODE = (
    f"import sys; sys.path.insert(0, {SANDBOX_CODE!r}); from runner.worker import main; main()"
)


@dataclass(frozen=True, slots=True)
class Bind:
    source: str  # on the host
    target: str  # inside the sandbox


@dataclass(frozen=True, slots=True)
class SandboxLayout:
    """Everything the sandbox binds; built once per runner."""

    python: str  # the interpreter path, valid inside the sandbox
    binds: tuple[Bind, ...]
    symlinks: tuple[tuple[str, str], ...]  # (target, link) as `--symlink` takes them
    gpu_nodes: tuple[str, ...]
    mirrored: tuple[str, ...]  # hard-linked copies: the sandbox user cannot reach the originals
    # The venv's site-packages inside the sandbox, rebuilt from only these entries of the
    # host's (None: no venv, nothing to leave out)
    site_packages: Bind | None = None
    site_entries: tuple[str, ...] = ()

    def bwrap_argv(self, worker_args: list[str], tmp_mb: int) -> list[str]:
        """The full command: bubblewrap, then the worker with `worker_args`."""
        argv = [
            "bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--clearenv", "--hostname", "judge",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--setenv", "HOME", JOB_DIR,
        ]  # fmt: skip
        for bind in self.binds:
            argv += ["--ro-bind", bind.source, bind.target]
        if self.site_packages is not None:
            # An empty tmpfs over the venv's site-packages, then the allowed entries into it;
            # read-only like the rest (--remount-ro below does not reach nested mounts).
            site = self.site_packages
            argv += ["--tmpfs", site.target]
            for name in self.site_entries:
                argv += ["--ro-bind", f"{site.source}/{name}", f"{site.target}/{name}"]
            argv += ["--remount-ro", site.target]
        for target, link in self.symlinks:
            argv += ["--symlink", target, link]
        for node in self.gpu_nodes:
            argv += ["--dev-bind", node, node]
        argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(tmp_mb << 20), "--tmpfs", "/tmp"]
        argv += ["--dir", JOB_DIR, "--dir", "/dev/shm", "--chdir", JOB_DIR]
        # bwrap builds the new root and /dev as tmpfs writable by the sandbox user; every job
        # of this worker would share them. Read-only from here on: a job writes only to the
        # fresh tmpfs it mounts over /tmp, /dev/shm and /box (runner/jobspace.py). The job's
        # mount namespace belongs to a less privileged user namespace, so the kernel locks
        # these flags there: not even the job's trusted set-up could make them writable.
        argv += ["--remount-ro", "/dev", "--remount-ro", "/"]
        return [*argv, "--", self.python, "-I", "-c", _WORKER_CODE, *worker_args]


def build_layout(identity: SandboxIdentity, repo_root: Path = REPO_ROOT) -> SandboxLayout:
    """Work out the binds for this host; mirror what the sandbox user could not reach."""
    binds: list[Bind] = [Bind("/usr", "/usr")]
    symlinks: list[tuple[str, str]] = []
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            symlinks.append((os.readlink(top), top))
        elif os.path.isdir(top):
            binds.append(Bind(top, top))
    if os.path.exists("/etc/ld.so.cache"):
        binds.append(Bind("/etc/ld.so.cache", "/etc/ld.so.cache"))
    mirrored: list[str] = []
    base = sys.base_prefix
    if any(Path(base).is_relative_to(m) for m in SCRATCH_MOUNTS):
        raise ValueError(f"Python at {base} would be hidden by a scratch mount")
    source = base
    if identity.switched and not _reachable(base, identity):
        source = str(_mirror(base))
        mirrored.append(base)
    binds.append(Bind(source, base))  # the venv's pyvenv.cfg and bin/python name this path
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    python = os.path.join(base, "bin", version)
    site: Bind | None = None
    entries: tuple[str, ...] = ()
    if sys.prefix != base:  # a venv may sit anywhere (a CI checkout under /tmp): /opt/venv
        if identity.switched and not _reachable(sys.prefix, identity):
            raise ValueError(f"the sandbox user {identity.name} cannot read the venv {sys.prefix}")
        binds.append(Bind(sys.prefix, SANDBOX_VENV))
        python = os.path.join(SANDBOX_VENV, "bin", "python3")
        host_site = Path(sys.prefix, "lib", version, "site-packages")
        if host_site.is_dir():
            site = Bind(str(host_site), f"{SANDBOX_VENV}/lib/{version}/site-packages")
            entries = site_entries(host_site)
    for package in CODE_PACKAGES:
        if (repo_root / package).is_dir():
            if identity.switched and not _reachable(str(repo_root / package), identity):
                raise ValueError(
                    f"the sandbox user {identity.name} cannot read {repo_root / package}; "
                    "check out the repository where every parent folder is searchable"
                )
            binds.append(Bind(str(repo_root / package), f"{SANDBOX_CODE}/{package}"))
    models = repo_root / MODELS_FOLDER
    if models.is_dir():
        if identity.switched and not _reachable(str(models), identity):
            raise ValueError(f"the sandbox user {identity.name} cannot read {models}")
        binds.append(Bind(str(models), f"{SANDBOX_CODE}/{MODELS_FOLDER}"))
    gpu = tuple(sorted(n for pattern in GPU_NODE_PATTERNS for n in glob.glob(pattern)))
    return SandboxLayout(python, tuple(binds), tuple(symlinks), gpu, tuple(mirrored), site, entries)


def site_entries(site: Path, roots: tuple[str, ...] = JOB_DISTRIBUTIONS) -> tuple[str, ...]:
    """The top-level names in `site` owned by `roots` and every distribution they require
    (extras left out), as each distribution's RECORD lists its files.

    Read once per process and site-packages state: reading every RECORD takes most of a
    second, and every app, launcher and unsafe-local judge builds a layout. Installing,
    upgrading or removing a distribution adds or removes a `*.dist-info` folder (its name
    carries the version) in `site`, so a folder whose names changed is read again; its
    modification time too, should a package's files have been replaced in place."""
    stamp = (site.stat().st_mtime_ns, tuple(sorted(os.listdir(site))))
    return _site_entries(str(site), roots, stamp)


@functools.lru_cache(maxsize=8)
def _site_entries(
    folder: str, roots: tuple[str, ...], stamp: tuple[int, tuple[str, ...]]
) -> tuple[str, ...]:
    """site_entries for one (folder, roots) in the state `stamp` names (the cache key)."""
    site = Path(folder)
    installed = {
        _normal(d.metadata["Name"]): d
        for d in importlib.metadata.distributions(path=[str(site)])
        if d.metadata["Name"]
    }
    names: set[str] = set()
    todo, seen = [_normal(r) for r in roots], set()
    while todo:
        name = todo.pop()
        dist = installed.get(name)
        if name in seen or dist is None:
            continue
        seen.add(name)
        todo += _required(dist)
        for file in dist.files or ():
            top = file.parts[0]
            if top != ".." and (site / top).exists():
                names.add(top)
    return tuple(sorted(names))


def _required(dist: importlib.metadata.Distribution) -> list[str]:
    """What `dist` requires in every installation (a requirement behind an extra is not)."""
    out = []
    for requirement in dist.requires or ():
        spec, _, marker = requirement.partition(";")
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if match and "extra" not in marker:
            out.append(_normal(match.group(1)))
    return out


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _reachable(path: str, identity: SandboxIdentity) -> bool:
    """Can `identity` search every directory down to `path` (and read `path`)?"""
    current = Path(path)
    for directory in [current, *current.parents]:
        info = directory.stat()
        if info.st_uid == identity.uid:
            bit = stat.S_IXUSR
        elif info.st_gid == identity.gid:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not info.st_mode & bit:
            return False
    return True


def _mirror(prefix: str) -> Path:
    """Hard-link the base installation where the sandbox user can reach it (copy if need be).

    Python under /root (pyenv) is the usual case: /root is mode 700. The base prefix's own
    site-packages and test suite are left out; the venv supplies the packages.
    """
    digest = hashlib.sha256(prefix.encode()).hexdigest()[:16]
    target = MIRROR_ROOT / digest
    stamp = target / ".judge-mirror-of"
    interpreter = Path(os.path.realpath(sys.executable)).stat()
    identity = f"{prefix}\n{interpreter.st_size} {interpreter.st_mtime_ns}\n"
    if stamp.exists() and stamp.read_text() == identity:
        return target
    if target.exists():
        shutil.rmtree(target)
    MIRROR_ROOT.mkdir(parents=True, exist_ok=True)
    os.chmod(MIRROR_ROOT.parent, 0o755)
    os.chmod(MIRROR_ROOT, 0o755)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    left_out = {os.path.join(prefix, "lib", version, d) for d in ("site-packages", "test")}

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if os.path.join(directory, n) in left_out}

    shutil.copytree(prefix, target, symlinks=True, ignore=ignore, copy_function=_link_or_copy)
    stamp.write_text(identity)
    return target


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
