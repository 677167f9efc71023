"""Helpers shared by the provider UI and API tests."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import PASSWORD

MARKER_INIT = '"""A test memory provider."""\n\ndef register(ctx):\n    ctx.register_memory_provider("x", None)\n'


def write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def user_plugin(home: Path, name: str, schema: str | None) -> Path:
    """A user plugin directory that passes the agent's marker test, with an optional schema."""
    directory = home / "plugins" / name
    write(directory / "__init__.py", MARKER_INIT)
    if schema is not None:
        write(directory / "config_schema.py", schema)
    return directory


def sign_in(page, live_server, username: str = "owner") -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")


def snapshot_files(home: Path) -> dict[str, bytes]:
    """Every file under ``home`` (the panel's own data dir excluded) with its bytes."""
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
