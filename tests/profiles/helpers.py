"""Homes with several profiles, built in the agent's own file formats."""

from __future__ import annotations

from pathlib import Path

DELIMITER = "\n§\n"


def make_profile(root: Path, name: str, *, config: str | None = None, memory: str | None = None,
                 user: str | None = None, env: str | None = None) -> Path:
    """Create profile ``name`` under ``root`` (``"default"``: the root itself) with the given files."""
    home = root if name == "default" else root / "profiles" / name
    (home / "memories").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (home / "config.yaml").write_text(config, encoding="utf-8")
    if memory is not None:
        (home / "memories" / "MEMORY.md").write_text(memory, encoding="utf-8")
    if user is not None:
        (home / "memories" / "USER.md").write_text(user, encoding="utf-8")
    if env is not None:
        (home / ".env").write_text(env, encoding="utf-8")
    return home


def memory_config(**values: object) -> str:
    lines = ["_config_version: 33", "memory:"]
    for key, value in values.items():
        text = ("true" if value else "false") if isinstance(value, bool) else repr(value) if isinstance(value, str) \
            else str(value)
        lines.append(f"  {key}: {text}")
    return "\n".join(lines) + "\n"


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file of one profile (the ``profiles/`` folder of the root excluded) with its bytes."""
    files = {}
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home)
        if rel.parts and rel.parts[0] == "profiles":
            continue
        if path.is_file():
            files[str(rel)] = path.read_bytes()
    return files
