"""Run ``manage.py serve`` as a real process for tests (and benchmarks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def child_env(**overrides: str) -> dict[str, str]:
    """The environment for a panel subprocess: the real settings but for the password hasher
    (``tests.served_settings``), without test-only switches."""
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update({"DJANGO_SETTINGS_MODULE": "tests.served_settings", "PYTHONUNBUFFERED": "1"})
    env.update(overrides)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    port: int
    lines: list[str] = field(default_factory=list)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for_line(self, needle: str, timeout: float = 180.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if needle in line:
                    return line
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no line containing {needle!r}; output so far:\n{self.output}")

    def wait_until_listening(self, host: str = "127.0.0.1", timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((host, self.port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError(f"server exited early:\n{self.output}") from None
                time.sleep(0.05)
        raise AssertionError(f"server not listening on {self.port}:\n{self.output}")


@contextmanager
def running_server(*, hermes_home: Path, data_dir: Path, extra_args: tuple[str, ...] = (),
                   env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    port = free_port()
    environment = child_env(HERMES_HOME=str(hermes_home), PANEL_DATA_DIR=str(data_dir), **(env or {}))
    process = subprocess.Popen(
        [sys.executable, str(REPO / "manage.py"), "serve", "--port", str(port), *extra_args],
        cwd=REPO,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    server = ServerProcess(process=process, port=port)

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            server.lines.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=180)
