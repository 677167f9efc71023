"""The memory page's forms refuse text that would read back as other entries (issue 29, finding 4):
the reason is shown at the field, in the reader's language, and nothing is written."""

from __future__ import annotations

import html

import pytest

from admin_panel.models import AuditEntry
from admin_panel.selectors.memory import entry_key
from memory_core import list_pending, stage
from tests.memory_view.helpers import read_store, write_store

pytestmark = pytest.mark.django_db

INSIDE_EN = "An entry cannot contain a line with only § on it: the agent uses that line to separate entries."
AT_END_EN = (
    "An entry cannot end with a line with only § on it: the agent would read that line as part of the separator "
    "before the next entry."
)
INSIDE_ZH = "条目中不能有只含 § 的一行：智能体用这样的一行分隔条目。"
AT_END_ZH = "条目不能以只含 § 的一行结尾：智能体会把这一行当作下一个条目前分隔符的一部分。"
VARIANTS = [
    ("Use uv.\r\n§\r\nDeploy on Fridays.", INSIDE_EN),  # a browser's CRLF
    ("one\n§\ntwo", INSIDE_EN),
    ("Repo uses uv.\n§", AT_END_EN),
    ("Repo uses uv.\r\n§\r\n", AT_END_EN),
]


def _field_error(content: str) -> str:
    start = content.index('class="field__error"')
    return html.unescape(content[start : content.index("</p>", start)])


@pytest.mark.parametrize(("text", "message"), VARIANTS)
def test_it_refuses_such_text_in_the_add_form_at_the_field(owner_client, home, text, message):
    write_store(home, "memory", ["kept"])

    response = owner_client.post("/memory/memory/add/", {"content": text, "next": "/memory/"})

    assert response.status_code == 400
    assert message in _field_error(response.content.decode())
    assert 'aria-invalid="true"' in response.content.decode()
    assert read_store(home, "memory") == ["kept"]
    assert not AuditEntry.objects.exists()


@pytest.mark.parametrize(("text", "message"), VARIANTS)
def test_it_refuses_such_text_in_the_edit_form_at_the_field(owner_client, home, text, message):
    write_store(home, "memory", ["first", "second"])

    # In the dialog (htmx), where the form comes back as a fragment to swap in.
    response = owner_client.post(
        f"/memory/memory/entries/{entry_key('first')}/edit/", {"content": text}, HTTP_HX_REQUEST="true"
    )

    assert message in _field_error(response.content.decode())
    assert read_store(home, "memory") == ["first", "second"]


def test_it_says_so_in_chinese(owner_client, home):
    write_store(home, "memory", ["kept"])

    inside = owner_client.post("/memory/memory/add/", {"content": "a\n§\nb"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    at_end = owner_client.post("/memory/memory/add/", {"content": "a\n§"}, HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert INSIDE_ZH in _field_error(inside.content.decode())
    assert AT_END_ZH in _field_error(at_end.content.decode())
    assert read_store(home, "memory") == ["kept"]


def test_it_adds_a_section_sign_that_is_not_a_separator_line(owner_client, home):
    write_store(home, "memory", ["kept"])

    for text in ("Prices in § 4 apply.", "§\nfirst line is a section sign", "ends with §"):
        response = owner_client.post("/memory/memory/add/", {"content": text})
        assert response.status_code == 302, text

    assert read_store(home, "memory") == ["kept", "Prices in § 4 apply.", "§\nfirst line is a section sign",
                                          "ends with §"]


def test_it_keeps_a_staged_write_of_such_text_pending(owner_client, home):
    write_store(home, "memory", ["kept"])
    record = stage(home, payload={"action": "add", "target": "memory", "content": "x\n§", "old_text": None},
                   summary="add to memory: x")

    response = owner_client.post("/memory/pending/action/", {"row_action": f"approve:{record['id']}"}, follow=True)

    assert AT_END_EN in response.content.decode().replace("&#x27;", "'")
    assert [one["id"] for one in list_pending(home)] == [record["id"]]
    assert read_store(home, "memory") == ["kept"]
