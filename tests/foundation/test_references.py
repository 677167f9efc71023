"""The reasons live in the repository: comments and docs point at docs/, never at files beside it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
TEXT_SUFFIXES = {".py", ".html", ".js", ".css", ".md", ".toml", ".txt", ".cfg", ".ini", ".yaml", ".yml"}
OUTSIDE = re.compile(r"/work/shared|shared/specs")
# The specification files that lived beside the project; inside docs/ a bare "api.md" is a link.
SPEC_FILE = re.compile(r"(?<![\w/.-])(memory-store|config-schema|sessions|api|providers)\.md\b")
THE_SPEC = re.compile(r"\b(the|a|its|our) specs?\b|\bspec's\b|\bspec §|\bspecs?\s+(vector|says)", re.IGNORECASE)
# Where code (not a comment) names the agent readback tool's default location; HERMES_READBACK overrides it.
TOOL_LOCATIONS = {"tests/agent_readback.py", "bench/readback_check.py"}
THIS = "tests/foundation/test_references.py"  # names the patterns it looks for
SECTION_REF = re.compile(r"docs/([\w-]+\.md) §([^\n]+)")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return [REPO / name for name in names if Path(name).suffix in TEXT_SUFFIXES and (REPO / name).is_file()]


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def test_it_points_at_nothing_outside_the_repository():
    found = []
    for path in tracked_text_files():
        if relative(path) == THIS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line) and not (relative(path) in TOOL_LOCATIONS and '"/work/shared/tools/' in line):
                found.append(f"{relative(path)}:{number}: {line.strip()}")

    assert found == []


def test_it_names_no_specification_file_only_the_docs():
    found = []
    for path in tracked_text_files():
        in_docs = relative(path).startswith("docs/")
        if relative(path) == THIS:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            spec_file = SPEC_FILE.search(line)
            if (spec_file and not (in_docs and f"({spec_file.group(0)})" in line)) or THE_SPEC.search(line):
                found.append(f"{relative(path)}:{number}: {line.strip()}")

    assert found == []


def test_every_docs_section_a_comment_names_exists():
    headings: dict[str, list[str]] = {}
    for doc in (REPO / "docs").glob("*.md"):
        headings[doc.name] = [line.lstrip("#").strip() for line in doc.read_text(encoding="utf-8").splitlines()
                              if line.startswith("#")]
    missing = []
    for path in tracked_text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for doc, rest in SECTION_REF.findall(line):
                titles = headings.get(doc, [])
                # A title may be wrapped onto the next line: its start is enough then.
                if not any(rest.startswith(title) or title.startswith(rest.strip()) for title in titles):
                    missing.append(f"{relative(path)}:{number}: docs/{doc} §{rest}")

    assert missing == []
