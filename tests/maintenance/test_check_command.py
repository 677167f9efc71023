"""``python manage.py memory check``: findings and duplicate groups as text or JSON, exit 1 on
duplicates or credentials (for cron), and never a credential's value in the output."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.memory_view.helpers import write_store

pytestmark = pytest.mark.django_db


def _check(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("memory", "check", *args, stdout=out)
    except SystemExit as exc:
        return int(exc.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_it_exits_1_on_duplicates_and_prints_the_group(home: Path) -> None:
    write_store(home, "memory", ["Prefers dark mode.", "Uses uv.", "prefers  DARK mode"])
    code, text = _check()
    assert code == 1
    assert "duplicates (exact, 21 chars wasted):" in text
    assert "1. Prefers dark mode. (keep)" in text and "3. prefers  DARK mode" in text
    assert "USER.md: 0% — 0/1,375 chars\n  no duplicates, no findings" in text


def test_it_exits_1_on_a_credential_without_printing_it(home: Path) -> None:
    write_store(home, "user", ["Name: Dana", "Staging DB password: hunter2024!"])
    for args in ((), ("user", "--json")):
        code, text = _check(*args)
        assert code == 1
        assert "hunter2024" not in text
        assert "[credential hidden]" in text


def test_it_exits_0_when_there_are_only_stale_entries_and_reports_them_as_json(home: Path) -> None:
    write_store(home, "memory", ["Yesterday we moved CI to GitHub Actions.", "TODO: migrate the billing tables"])
    code, text = _check("memory", "--json")
    assert code == 0
    report = json.loads(text)["memory"]
    assert report["duplicate_groups"] == []
    assert [(f["category"], f["index"], [e["text"] for e in f["evidence"]]) for f in report["findings"]] == [
        ("relative_date", 0, ["Yesterday"]),
        ("task_state", 1, ["TODO"]),
    ]
    assert report["findings"][0]["action"] == "rewrite" and report["findings"][1]["action"] == "delete"


def test_it_refuses_an_unknown_store_with_exit_2(home: Path) -> None:
    code, _text = _check("soul")
    assert code == 2


def test_it_exits_1_on_a_stored_secrets_value_in_an_entry_without_printing_it(home: Path) -> None:
    # The value looks like nothing in particular, so only the stored secret makes it a credential.
    value = "plum-orchard-quietly-7"
    (home / ".env").write_text(f"HONCHO_API_KEY={value}\n", encoding="utf-8")
    write_store(home, "memory", [f"Yesterday the deploy used {value} to reach the honcho host.", "Uses uv."])
    for args in ((), ("memory", "--json")):
        code, text = _check(*args)
        assert code == 1
        assert value not in text
        assert "[credential hidden]" in text
    report = json.loads(_check("memory", "--json")[1])["memory"]
    assert {f["category"] for f in report["findings"]} == {"credential", "relative_date"}
    # The entry's other finding shows the entry hidden the same way.
    assert all(value not in f["entry"] for f in report["findings"])


def test_it_exits_0_when_a_stored_secret_appears_in_no_entry(home: Path) -> None:
    (home / ".env").write_text("HONCHO_API_KEY=plum-orchard-quietly-7\n", encoding="utf-8")
    write_store(home, "memory", ["Uses uv.", "Deploys go through staging first."])
    code, text = _check("memory")
    assert code == 0
    assert "no duplicates, no findings" in text
