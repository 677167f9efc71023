"""A stored secret's value inside an entry appears on no page that shows entry text: the memory
page, its forms, the pending writes, maintenance and the merge flow, the snapshot preview, the
audit log and its exports. Each shows ``[secret: ENV_NAME]`` instead."""

from __future__ import annotations

import pytest

from admin_panel.models import AuditEntry
from admin_panel.selectors.memory import make_ref
from memory_core import caching, stage
from tests.memory_view.helpers import write_config, write_store

pytestmark = pytest.mark.django_db

SECRET = "sk-live-9f8e7d6c5b4a3921"
ENTRY = f"The billing API key is {SECRET} (staging)."
PLACEHOLDER = "[secret: BILLING_API_KEY]"


@pytest.fixture
def secret_home(home):
    (home / ".env").write_text(f"BILLING_API_KEY={SECRET}\n", encoding="utf-8")
    caching.clear_all()
    write_config(home, write_approval=True)
    write_store(home, "memory", [ENTRY, f"the billing api key is {SECRET} (staging)", "Uses uv."])
    stage(home, payload={"action": "add", "target": "memory", "content": f"Token {SECRET} for CI."},
          summary=f"add to memory: Token {SECRET} for CI.")
    yield home
    caching.clear_all()


def _pages(client, home) -> dict[str, str]:
    ref = make_ref("memory", ENTRY)
    key = ref.split(":")[1]
    # A panel edit records the old and new text in the audit log.
    client.post(f"/memory/memory/entries/{key}/edit/", {"content": ENTRY.replace("(staging)", "(prod)")})
    edited = ENTRY.replace("(staging)", "(prod)")
    audit = AuditEntry.objects.filter(kind=AuditEntry.Kind.MEMORY_ENTRY).latest("pk")
    edited_ref = make_ref("memory", edited)
    urls = {
        "memory page": "/memory/",
        "edit form": f"/memory/memory/entries/{edited_ref.split(':')[1]}/edit/",
        "delete confirm": f"/memory/delete/?entry={edited_ref}",
        "pending": "/memory/pending/",
        "blocked": "/memory/blocked/",
        "snapshot": "/memory/snapshot/",
        "maintenance": "/memory/memory/maintenance/",
        "merge form": f"/memory/memory/maintenance/merge/?entry={edited_ref}",
        "audit list": "/audit/",
        "audit detail": f"/audit/{audit.pk}/",
        "audit jsonl": "/audit/?format=jsonl",
        "audit csv": "/audit/?format=csv",
    }
    pages = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        pages[name] = body.decode()
    review = client.post("/memory/memory/maintenance/merge/",
                         {"entry": [edited_ref], "content": edited, "step": "review"})
    pages["merge review"] = review.content.decode()
    return pages


def test_a_stored_secrets_value_in_an_entry_appears_on_no_page(owner_client, secret_home):
    pages = _pages(owner_client, secret_home)
    for name, body in pages.items():
        assert SECRET not in body, name
    for name in ("memory page", "edit form", "delete confirm", "snapshot", "maintenance", "merge form",
                 "merge review", "audit detail", "audit jsonl"):
        assert PLACEHOLDER in pages[name], name
    assert f"Token {PLACEHOLDER} for CI." in pages["pending"]


def test_a_viewer_sees_the_placeholder_too(viewer_client, secret_home):
    html = viewer_client.get("/memory/").content.decode()
    assert SECRET not in html and PLACEHOLDER in html


def test_saving_the_masked_text_of_the_edit_form_removes_the_secret_from_the_store(owner_client, secret_home):
    key = make_ref("memory", ENTRY).split(":")[1]
    form = owner_client.get(f"/memory/memory/entries/{key}/edit/").content.decode()
    shown = form.split("</textarea>")[0].rsplit(">", 1)[1].strip()
    assert shown == ENTRY.replace(SECRET, PLACEHOLDER)
    owner_client.post(f"/memory/memory/entries/{key}/edit/", {"content": shown})
    on_disk = (secret_home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert SECRET in on_disk  # the other, lower-case entry still holds it
    assert f"The billing API key is {PLACEHOLDER} (staging)." in on_disk


def test_an_entry_holding_a_stored_secret_is_a_credential_finding_that_links_to_the_fix(owner_client, secret_home):
    write_store(secret_home, "user", [f"Backup code: {SECRET}", "Likes tea."])
    html = owner_client.get("/memory/user/maintenance/").content.decode()
    assert html.count('data-category="credential"') == 1
    finding = html[html.index('data-category="credential"'):]
    finding = finding[:finding.index("</li>")]
    assert f"<mark>{PLACEHOLDER}</mark>" in finding and SECRET not in finding
    assert f'/memory/user/maintenance/merge/?entry={make_ref("user", f"Backup code: {SECRET}")}'.replace(
        ":", "%3A") in finding
