"""Real Redis and PostgreSQL servers in a folder of this machine, for the tests and for
`make cluster` (devtools.local_cluster): each one's configuration, data, log and pid live in
its folder, so a later process (`cluster stop`) finds and stops what an earlier one
started.

Both listen on 127.0.0.1 only and ask for no password (PostgreSQL trusts local
connections): they are a developer's or a test's private servers, not a deployment. A
submission judged in the sandbox has no network at all; one judged unsafe-local shares
this machine's, as it shares its files (see docs/CLUSTER.md).

initdb and postgres refuse to run as root; as root, PostgreSQL's commands run as the
`postgres` system user (created as `judge-db` where there is none) through runuser, and
its files are that user's.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.rows import TupleRow

REDIS_BINARY = "redis-server"
PG_BIN_15 = Path("/usr/lib/postgresql/15/bin")
PG_TOOLS = ("initdb", "pg_ctl", "postgres")
# The bootstrap superuser (it creates roles and databases) and the platform's own role.
PG_SUPERUSER = "postgres"
PG_ROLE = "judge"
PG_DATABASE = "judge"
# The system account PostgreSQL runs as under root when there is no `postgres` user.
FALLBACK_DB_USER = "judge-db"
# Where a root-run cluster keeps its data when the server user cannot reach the folder
# (a 0700 ancestor such as /root or pytest's temporary root): a folder it owns.
UNREACHABLE_FALLBACK = Path("/var/tmp")
# The longest unix socket path the kernel takes is 107 bytes; PostgreSQL adds its name.
MAX_SOCKET_DIR = 80
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0
LOG_TAIL_LINES = 20


class ServiceError(RuntimeError):
    """A local server could not be started or stopped; the message names the binary and,
    where it got that far, the tail of its log."""


def missing_binaries(which: Iterable[str] = ("redis", "postgres")) -> list[str]:
    """What this machine lacks to run the named services ("redis", "postgres"), as
    human-readable names; empty when everything is there (tests skip with this list)."""
    missing: list[str] = []
    wanted = set(which)
    if "redis" in wanted and _redis_binary() is None:
        missing.append(f"{REDIS_BINARY} (Debian package redis-server)")
    if "postgres" in wanted:
        if _pg_bin() is None:
            tools = ", ".join(PG_TOOLS)
            missing.append(f"PostgreSQL 15 ({tools} in {PG_BIN_15} or on PATH)")
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                missing.append("runuser (to run PostgreSQL as a non-root user)")
            if _user_exists(PG_SUPERUSER) is None and shutil.which("useradd") is None:
                missing.append(f"useradd (to create the {FALLBACK_DB_USER} system user)")
    return missing


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (it may be taken before use;
    the servers retry with another when they picked it themselves)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class RedisServer:
    """redis-server on 127.0.0.1 with its configuration, append-only file, log and pid
    file in `folder`. With `appendonly yes` every write is logged, so messages queued in
    it survive a restart (stop() lets Redis flush the log before it exits)."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder.resolve()
        self.conf = self.folder / "redis.conf"
        self.log = self.folder / "redis.log"
        self.pidfile = self.folder / "redis.pid"
        # A folder that has been used before keeps its port: another process's stop(),
        # and a restart(), find the same server at the same URL.
        self._port_chosen = port is None and _conf_port(self.conf, "port ") is None
        self.port = port or _conf_port(self.conf, "port ") or free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The running server's pid (from its pid file when another process started it)."""
        if self._process is not None and self._process.poll() is None:
            return self._process.pid
        return live_pid(_read_int(self.pidfile), "redis-server")

    def running(self) -> bool:
        return self.pid is not None and _redis_ping(self.port)

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start the server (unless it already answers) and wait until PING does."""
        if self.running():
            return
        binary = _redis_binary()
        if binary is None:
            raise ServiceError(
                f"{REDIS_BINARY} not found (install the Debian package redis-server)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            self._write_conf()
            offset = self.log.stat().st_size if self.log.exists() else 0
            self._process = subprocess.Popen(
                [binary, str(self.conf)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                # Its own session: a Ctrl-C meant for whoever started it does not reach it,
                # and it outlives `cluster start`.
                start_new_session=True,
            )
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    break
                if _redis_ping(self.port):
                    return
                time.sleep(0.05)
            else:
                self._kill_process()
                raise ServiceError(
                    f"{binary} did not answer PING on port {self.port} within {timeout_s:g} s"
                    + _tail(self.log, offset)
                )
            # It exited: a port we picked may have been taken meanwhile; try another one.
            if self._port_chosen and "Address already in use" in _text_after(self.log, offset):
                self.port = free_port()
                continue
            raise ServiceError(
                f"{binary} exited with status {self._process.returncode} on start"
                + _tail(self.log, offset)
            )
        raise ServiceError(f"{binary}: no free port after three tries" + _tail(self.log))

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM (Redis fsyncs its append-only file and exits), SIGKILL after
        `timeout_s`; nothing to do when it is not running."""
        pid = self.pid
        if pid is None:
            return
        terminate(pid, timeout_s, self._process)
        self._process = None
        self.pidfile.unlink(missing_ok=True)

    def restart(self) -> None:
        """Stop, then start on the same port with the same data (the append-only file)."""
        self.stop()
        self._port_chosen = False  # the URL clients hold must stay right
        self.start()

    def _write_conf(self) -> None:
        self.conf.write_text(
            "\n".join(
                [
                    "# written by devtools.local_services; rewritten on every start",
                    "bind 127.0.0.1",
                    # Protected mode refuses only non-loopback clients of a server without
                    # a password; bound to 127.0.0.1 there are none, so it never bites.
                    "protected-mode yes",
                    f"port {self.port}",
                    "daemonize no",
                    f"dir {_quoted(self.folder)}",
                    f"pidfile {_quoted(self.pidfile)}",
                    f"logfile {_quoted(self.log)}",
                    "appendonly yes",
                    "appendfsync everysec",
                    'save ""',  # the append-only file is the persistence; no RDB snapshots
                    "",
                ]
            ),
            encoding="utf-8",
        )

    def _kill_process(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None


class PostgresServer:
    """A PostgreSQL cluster in `folder/data`, listening on 127.0.0.1:`port` and on a unix
    socket in `folder/socket`, trusting local connections. It holds the role `judge` (it
    may create databases) and the database `judge` it owns; `url` is that database's
    SQLAlchemy URL. `durable=False` turns fsync off (tests: faster, and a crash of the
    machine may lose the cluster, which no test keeps)."""

    def __init__(self, folder: Path, port: int | None = None, *, durable: bool = True) -> None:
        self.folder = folder.resolve()
        self.durable = durable
        self.user = _server_user() if os.geteuid() == 0 else None
        base = self._base()
        self.data = base / "data"
        self.socket_dir = base / "socket"
        self.log = base / "postgres.log"
        self.include = self.data / "judge.conf"
        known = _conf_port(self.include, "port = ")
        self._port_chosen = port is None and known is None
        self.port = port or known or free_port()

    @property
    def url(self) -> str:
        return self.url_for(PG_DATABASE)

    @property
    def admin_url(self) -> str:
        """The superuser on the maintenance database (roles, CREATE and DROP DATABASE)."""
        return f"postgresql://{PG_SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def url_for(self, database: str) -> str:
        return f"postgresql://{PG_ROLE}@127.0.0.1:{self.port}/{database}"

    @property
    def pid(self) -> int | None:
        """The postmaster's pid from its postmaster.pid, when it is alive."""
        try:
            first = (self.data / "postmaster.pid").read_text(encoding="ascii").split("\n", 1)[0]
        except (OSError, UnicodeDecodeError):
            return None
        return live_pid(int(first) if first.strip().isdigit() else None, "postgres")

    def running(self) -> bool:
        return self.pid is not None

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """initdb if the data folder is new, start the server, and make the role and
        database (both idempotent); nothing to start when it already runs."""
        bindir = _pg_bin()
        if bindir is None:
            raise ServiceError(f"PostgreSQL 15 not found in {PG_BIN_15} or on PATH")
        self._prepare_folders()
        if not (self.data / "PG_VERSION").is_file():
            self._initdb(bindir)
        if not self.running():
            self._start(bindir, timeout_s)
        self._ensure_role_and_database()

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """pg_ctl stop -m fast (sessions are cut, the server checkpoints and exits)."""
        bindir = _pg_bin()
        if not self.running() or bindir is None:
            return
        argv = [str(bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w"]
        self._run([*argv, "-t", str(int(timeout_s)), "stop"], "pg_ctl stop", timeout_s + 10)

    def restart(self) -> None:
        self.stop()
        self._port_chosen = False
        self.start()

    def destroy(self) -> None:
        """Stop the server and delete its data, wherever it lies (tests)."""
        self.stop()
        base = self.data.parent
        shutil.rmtree(base if base != self.folder else self.data, ignore_errors=True)
        for link in (self.folder / "data", self.folder / "postgres.log"):
            if link.is_symlink():
                link.unlink()

    def create_database(self, name: str) -> str:
        """A new empty database owned by the platform's role; returns its URL."""
        with self._admin() as connection:
            connection.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(name), sql.Identifier(PG_ROLE)
                )
            )
        return self.url_for(name)

    def drop_database(self, name: str) -> None:
        """Drop `name`, cutting the sessions still connected to it (an app's pool)."""
        with self._admin() as connection:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    # -- the folder, owned by the server user when we are root --------------------------

    def _base(self) -> Path:
        """Where data, socket and log live: the folder itself, unless we are root and the
        server user cannot reach it; then a folder of that user's, named for this one,
        which `folder/data` links to (so every later process finds it there)."""
        link = self.folder / "data"
        if link.is_symlink():
            return Path(os.readlink(link)).parent
        if link.is_dir() or self.user is None:
            return self.folder
        # Made now, so that what its parents allow is what is really there (the folder
        # itself is ours: start() gives the server user search permission on it).
        self.folder.mkdir(parents=True, exist_ok=True)
        if _reachable_by(self.folder.parent, self.user):
            return self.folder
        digest = hashlib.sha256(str(self.folder).encode()).hexdigest()[:16]
        return UNREACHABLE_FALLBACK / f"judge-pg-{digest}"

    def _prepare_folders(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        base = self.data.parent
        if self.user is not None:
            if base == self.folder:
                # Search permission only: the server user may pass through, not list it.
                self.folder.chmod(self.folder.stat().st_mode | 0o111)
            else:
                base.mkdir(mode=0o700, exist_ok=True)
                shutil.chown(base, self.user.pw_uid, self.user.pw_gid)
                for name in ("data", "postgres.log"):
                    link = self.folder / name
                    if not link.is_symlink():
                        link.symlink_to(base / name)
        for path, mode in ((self.data, 0o700), (self.socket_dir, 0o700)):
            path.mkdir(mode=mode, exist_ok=True)
        self.log.touch()
        if self.user is not None:
            for path in (self.data, self.socket_dir, self.log):
                shutil.chown(path, self.user.pw_uid, self.user.pw_gid)

    def _initdb(self, bindir: Path) -> None:
        argv = [
            str(bindir / "initdb"),
            *("-D", str(self.data), "-U", PG_SUPERUSER, "-A", "trust", "-E", "UTF8"),
            *("--locale=C", "--no-instructions"),
        ]
        self._run(argv, "initdb", 120)
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write("\n# devtools.local_services: port, addresses and durability\n")
            conf.write("include_if_exists = 'judge.conf'\n")

    def _write_include(self) -> None:
        socket_dir = str(self.socket_dir) if len(str(self.socket_dir)) <= MAX_SOCKET_DIR else ""
        lines = [
            "# written by devtools.local_services on every start",
            f"port = {self.port}",
            "listen_addresses = '127.0.0.1'",
            # '' (no unix socket) where the path would be too long for one: TCP still works.
            f"unix_socket_directories = '{socket_dir}'",
            # Every server process and worker keeps a pool of up to 40 (web.store.db).
            "max_connections = 200",
        ]
        if not self.durable:
            lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        self.include.write_text("\n".join([*lines, ""]), encoding="utf-8")
        if self.user is not None:
            shutil.chown(self.include, self.user.pw_uid, self.user.pw_gid)

    def _start(self, bindir: Path, timeout_s: float) -> None:
        for _ in range(3):
            self._write_include()
            offset = self.log.stat().st_size
            argv = [str(bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w"]
            result = self._run([*argv, "-t", str(int(timeout_s)), "start"], None, timeout_s + 10)
            if result.returncode == 0:
                return
            log = _text_after(self.log, offset)
            if self._port_chosen and "Address already in use" in log:
                self.port = free_port()
                continue
            raise ServiceError(
                f"pg_ctl start failed (exit {result.returncode}): "
                + result.stderr.decode(errors="replace").strip()
                + _tail(self.log, offset)
            )
        raise ServiceError("postgres: no free port after three tries" + _tail(self.log))

    def _admin(self) -> psycopg.Connection[TupleRow]:
        # autocommit: CREATE and DROP DATABASE cannot run inside a transaction.
        return psycopg.connect(self.admin_url, autocommit=True, connect_timeout=10)

    def _ensure_role_and_database(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                connection = self._admin()
                break
            except psycopg.OperationalError as exc:  # still starting after pg_ctl -w
                if time.monotonic() > deadline:
                    raise ServiceError(f"postgres on port {self.port}: {exc}") from exc
                time.sleep(0.2)
        with connection:
            role = sql.Identifier(PG_ROLE)
            found = connection.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [PG_ROLE])
            if found.fetchone() is None:
                connection.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB").format(role))
            found = connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [PG_DATABASE]
            )
            if found.fetchone() is None:
                connection.execute(
                    sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(PG_DATABASE), role)
                )

    def _run(
        self, argv: list[str], what: str | None, timeout_s: float
    ) -> subprocess.CompletedProcess[bytes]:
        """Run a PostgreSQL tool, as the server user when we are root; `what` names it in
        the error raised on failure (None: the caller looks at the result)."""
        if self.user is not None:
            argv = ["runuser", "-u", self.user.pw_name, "--", *argv]
        try:
            result = subprocess.run(
                argv,
                cwd="/",  # the server user may not be able to enter our working directory
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout_s,
                check=False,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired as exc:
            raise ServiceError(f"{argv[0]}: no answer within {timeout_s:g} s") from exc
        if what is not None and result.returncode != 0:
            output = (result.stderr or result.stdout).decode(errors="replace").strip()
            raise ServiceError(f"{what} failed (exit {result.returncode}): {output}")
        return result


# -- helpers ------------------------------------------------------------------------------


def _redis_binary() -> str | None:
    default = Path("/usr/bin") / REDIS_BINARY
    return str(default) if default.is_file() else shutil.which(REDIS_BINARY)


def _pg_bin() -> Path | None:
    if all((PG_BIN_15 / tool).is_file() for tool in PG_TOOLS):
        return PG_BIN_15
    found = shutil.which("pg_ctl")
    if found is not None:
        bindir = Path(found).resolve().parent
        if all((bindir / tool).is_file() for tool in PG_TOOLS):
            return bindir
    return None


def _user_exists(name: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def _server_user() -> pwd.struct_passwd:
    """The account PostgreSQL runs as under root: `postgres`, else `judge-db` (created)."""
    for name in (PG_SUPERUSER, FALLBACK_DB_USER):
        found = _user_exists(name)
        if found is not None:
            return found
    argv = ["useradd", "--system", "--user-group", "--no-create-home"]
    argv += ["--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", FALLBACK_DB_USER]
    result = subprocess.run(argv, capture_output=True, check=False)
    created = _user_exists(FALLBACK_DB_USER)
    if created is None:
        output = result.stderr.decode(errors="replace").strip()
        raise ServiceError(f"no postgres user, and useradd {FALLBACK_DB_USER} failed: {output}")
    return created


def _reachable_by(path: Path, user: pwd.struct_passwd) -> bool:
    """Whether `user` may traverse every folder from / down to `path` (mode bits only)."""
    groups = set(os.getgrouplist(user.pw_name, user.pw_gid))
    for folder in [*reversed(path.parents), path]:
        try:
            st = folder.stat()
        except OSError:
            return False
        if st.st_uid == user.pw_uid:
            allowed = st.st_mode & 0o100
        elif st.st_gid in groups:
            allowed = st.st_mode & 0o010
        else:
            allowed = st.st_mode & 0o001
        if not allowed:
            return False
    return True


def _redis_ping(port: int) -> bool:
    """PING over a raw socket: +PONG means ready (-LOADING while it reads its AOF)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"*1\r\n$4\r\nPING\r\n")
            answer = b""
            while not answer.endswith(b"\r\n"):
                chunk = conn.recv(256)
                if not chunk:
                    return False
                answer += chunk
            return answer.startswith(b"+PONG")
    except OSError:
        return False


def _conf_port(path: Path, prefix: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(prefix) and line[len(prefix) :].strip().isdigit():
            return int(line[len(prefix) :])
    return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def live_pid(pid: int | None, marker: str) -> int | None:
    """`pid` if that process is alive and its command line names `marker` (a pid file
    outlives its process, and the kernel hands the number to another one)."""
    if pid is None or pid <= 0:
        return None
    # Just after exec the kernel may show an empty command line for a moment: look again.
    for _ in range(40):
        if exited(pid):
            return None  # a zombie has exited too; only its parent's wait is missing
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        if cmdline:
            return pid if marker.encode() in cmdline else None
        time.sleep(0.025)
    return None


def terminate(
    pid: int,
    timeout_s: float,
    process: subprocess.Popen[bytes] | None = None,
    *,
    group: bool = False,
) -> None:
    """SIGTERM `pid`, wait up to `timeout_s` for it to exit, then SIGKILL it; with
    `group`, SIGKILL its whole process group then, so that nothing it started (a judging
    child) outlives it. The group is killed only while the leader still lives: after it
    has exited, its number may already belong to someone else."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None:
            if process.poll() is not None:
                break
        elif exited(pid):
            break
        time.sleep(0.05)
    else:
        try:
            if group:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if process is not None:
        process.wait()
    else:
        deadline = time.monotonic() + 10
        while not exited(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def exited(pid: int) -> bool:
    """Exited (a zombie counts: it is only waiting for its parent to read its status)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return state[0] == "Z"


def _quoted(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text_after(path: Path, offset: int) -> str:
    try:
        with path.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")
    except OSError:
        return ""


def _tail(path: Path, offset: int = 0) -> str:
    lines = _text_after(path, offset).strip().splitlines()[-LOG_TAIL_LINES:]
    if not lines:
        return f" (nothing in {path})"
    return f"; the end of {path}:\n  " + "\n  ".join(lines)
