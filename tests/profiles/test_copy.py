"""Copying settings from one profile to others: reviewed first, then written through the normal
validated saves with their conflict check, audited with the profile; secrets never copied.
Every write is checked on disk: the targets' files change, every other profile stays byte-identical."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from admin_panel.models import AuditEntry

from .helpers import make_profile, memory_config, snapshot

pytestmark = pytest.mark.django_db

SECRET = "hs-very-secret-value-123"


@pytest.fixture
def three(home: Path) -> dict[str, Path]:
    """default (the panel's home) with its own settings, and two profiles that differ."""
    homes = {
        "default": make_profile(home, "default", config=memory_config(memory_char_limit=3000, write_approval=True,
                                                                        nudge_interval=5)),
        "ops": make_profile(home, "ops", config=memory_config(user_profile_enabled=False, nudge_interval=20)),
        "coder": make_profile(home, "coder", config="# coder's own comment\nmodel: gpt\n"),
        "spare": make_profile(home, "spare", config=memory_config(memory_char_limit=1000)),
    }
    return homes


def fingerprints(html: str) -> dict[str, str]:
    return dict(re.findall(r'name="(fp:[a-z]+|source_fp)" value="([^"]*)"', html))


def review(client, **data):
    return client.post("/profiles/copy/review/", data)


def apply_reviewed(client, html: str, *, what: str, source: str, targets: list[str]):
    data = {"what": what, "source": source, "target": targets, **fingerprints(html)}
    return client.post("/profiles/copy/apply/", data)


def memory_of(home: Path) -> dict:
    return yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8")).get("memory") or {}


def test_it_reviews_the_exact_changes_per_profile_and_writes_nothing(owner_client, three) -> None:
    before = {name: snapshot(path) for name, path in three.items()}
    response = review(owner_client, what="memory", source="default", target=["ops", "coder"])
    assert response.status_code == 200
    html = response.content.decode()
    ops = html.split('data-target="ops"')[1].split("</section>")[0]
    assert "User profile" in ops and "Memory size limit (characters)" in ops
    assert "<code>20</code>" in ops and "<code>5</code>" in ops  # nudge interval 20 → 5
    coder = html.split('data-target="coder"')[1].split("</section>")[0]
    assert "User profile" not in coder  # default in both: nothing to change
    assert {name: snapshot(path) for name, path in three.items()} == before


def test_it_copies_memory_settings_to_the_chosen_profiles_only(owner_client, three) -> None:
    untouched = {name: snapshot(three[name]) for name in ("default", "spare")}
    html = review(owner_client, what="memory", source="default", target=["ops", "coder"]).content.decode()
    response = apply_reviewed(owner_client, html, what="memory", source="default", targets=["ops", "coder"])
    assert response.status_code == 200
    assert response.content.decode().count('data-status="saved"') == 2
    expected = {"memory_char_limit": 3000, "write_approval": True, "nudge_interval": 5}
    assert memory_of(three["ops"]) == expected  # user_profile_enabled removed: the default applies again
    assert memory_of(three["coder"]) == expected
    coder_text = (three["coder"] / "config.yaml").read_text(encoding="utf-8")
    assert "# coder's own comment" in coder_text and "model: gpt" in coder_text
    assert {name: snapshot(three[name]) for name in ("default", "spare")} == untouched
    entries = AuditEntry.objects.filter(kind=AuditEntry.Kind.MEMORY_SETTINGS).order_by("pk")
    assert [(e.details["profile"], e.details["copied_from"], e.home) for e in entries] == [
        ("ops", "default", str(three["ops"])),
        ("coder", "default", str(three["coder"])),
    ]


def test_it_refuses_a_target_changed_since_the_review_and_still_copies_to_the_others(owner_client, three) -> None:
    html = review(owner_client, what="memory", source="default", target=["ops", "coder"]).content.decode()
    hand_edit = memory_config(user_profile_enabled=False, nudge_interval=25)
    (three["ops"] / "config.yaml").write_text(hand_edit, encoding="utf-8")
    response = apply_reviewed(owner_client, html, what="memory", source="default", targets=["ops", "coder"])
    assert response.status_code == 409
    body = response.content.decode()
    assert 'data-target="ops" data-status="conflict"' in body and "Nudge interval" in body
    assert (three["ops"] / "config.yaml").read_text(encoding="utf-8") == hand_edit
    assert memory_of(three["coder"])["memory_char_limit"] == 3000
    assert not AuditEntry.objects.filter(home=str(three["ops"])).exists()


def test_it_writes_nothing_when_the_source_changed_since_the_review(owner_client, three) -> None:
    html = review(owner_client, what="memory", source="default", target=["ops", "coder"]).content.decode()
    (three["default"] / "config.yaml").write_text(memory_config(memory_char_limit=9999), encoding="utf-8")
    before = {name: snapshot(path) for name, path in three.items()}
    response = apply_reviewed(owner_client, html, what="memory", source="default", targets=["ops", "coder"])
    assert response.status_code == 409
    assert "changed since the review" in response.content.decode()
    assert {name: snapshot(path) for name, path in three.items()} == before
    assert not AuditEntry.objects.exists()


def hindsight_source(home: Path) -> None:
    (home / "hindsight").mkdir(exist_ok=True)
    (home / "hindsight" / "config.json").write_text(
        json.dumps({"mode": "cloud", "bank_id": "team-bank", "budget": "high"}), encoding="utf-8")
    (home / ".env").write_text(f"HINDSIGHT_API_KEY={SECRET}\nHINDSIGHT_TIMEOUT=45\n", encoding="utf-8")


def test_it_copies_a_providers_settings_but_never_its_secrets_and_says_which_the_target_needs(
    owner_client, three
) -> None:
    hindsight_source(three["default"])
    untouched = {name: snapshot(three[name]) for name in ("default", "coder", "spare")}
    response = review(owner_client, what="hindsight", source="default", target=["ops"])
    html = response.content.decode()
    assert response.status_code == 200
    assert SECRET not in html
    needs = html.split("This profile still needs:")[1].split("</div>")[0]
    assert "API key" in needs and "HINDSIGHT_API_KEY" in needs and "required" in needs
    done = apply_reviewed(owner_client, html, what="hindsight", source="default", targets=["ops"])
    assert done.status_code == 200 and 'data-status="saved"' in done.content.decode()
    assert SECRET not in done.content.decode()
    stored = json.loads((three["ops"] / "hindsight" / "config.json").read_text(encoding="utf-8"))
    assert stored["mode"] == "cloud" and stored["bank_id"] == "team-bank"
    assert SECRET not in json.dumps(stored)
    assert not (three["ops"] / ".env").exists()
    assert {name: snapshot(three[name]) for name in ("default", "coder", "spare")} == untouched
    entry = AuditEntry.objects.get(kind=AuditEntry.Kind.PROVIDER_SETTINGS)
    assert entry.details["profile"] == "ops" and entry.home == str(three["ops"])
    assert SECRET not in json.dumps(entry.details)


def test_it_does_not_ask_for_a_secret_the_target_already_has(owner_client, three) -> None:
    hindsight_source(three["default"])
    (three["ops"] / ".env").write_text("HINDSIGHT_API_KEY=ops-own-key\n", encoding="utf-8")
    html = review(owner_client, what="hindsight", source="default", target=["ops"]).content.decode()
    assert "This profile still needs:" not in html
    assert "ops-own-key" not in html


def test_it_refuses_a_provider_copy_that_would_conflict_with_a_hand_edit(owner_client, three) -> None:
    hindsight_source(three["default"])
    html = review(owner_client, what="hindsight", source="default", target=["ops", "coder"]).content.decode()
    (three["ops"] / "hindsight").mkdir()
    edited = json.dumps({"bank_id": "ops-by-hand"})
    (three["ops"] / "hindsight" / "config.json").write_text(edited, encoding="utf-8")
    response = apply_reviewed(owner_client, html, what="hindsight", source="default", targets=["ops", "coder"])
    assert response.status_code == 409
    assert 'data-target="ops" data-status="conflict"' in response.content.decode()
    assert (three["ops"] / "hindsight" / "config.json").read_text(encoding="utf-8") == edited
    assert json.loads((three["coder"] / "hindsight" / "config.json").read_text())["bank_id"] == "team-bank"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"what": "memory", "source": "default", "target": ["default"]}, "Choose at least one other profile"),
        ({"what": "memory", "source": "nobody", "target": ["ops"]}, "Choose a profile to copy from."),
        ({"what": "memory", "source": "default", "target": ["../etc"]}, "There is no usable profile"),
        ({"what": "no-such", "source": "default", "target": ["ops"]}, "Unknown memory provider"),
    ],
)
def test_it_refuses_bad_choices_with_a_message_and_writes_nothing(owner_client, three, data, message) -> None:
    before = {name: snapshot(path) for name, path in three.items()}
    response = review(owner_client, **data)
    assert response.status_code == 400 and message in response.content.decode()
    assert {name: snapshot(path) for name, path in three.items()} == before


def test_it_lets_a_viewer_change_nothing(viewer_client, three) -> None:
    before = {name: snapshot(path) for name, path in three.items()}
    assert viewer_client.get("/profiles/copy/").status_code == 403
    assert review(viewer_client, what="memory", source="default", target=["ops"]).status_code == 403
    data = {"what": "memory", "source": "default", "target": ["ops"], "source_fp": "x", "fp:ops": "y"}
    assert viewer_client.post("/profiles/copy/apply/", data).status_code == 403
    assert {name: snapshot(path) for name, path in three.items()} == before


def needs_of(html: str, target: str) -> str:
    section = html.split(f'data-target="{target}"')[1].split("</section>")[0]
    return section.split("This profile still needs:")[1] if "This profile still needs:" in section else ""


def test_it_says_a_secret_becomes_required_by_the_copied_values_even_when_the_source_lacks_it(
    owner_client, three
) -> None:
    (three["default"] / "hindsight").mkdir()
    (three["default"] / "hindsight" / "config.json").write_text(json.dumps({"mode": "cloud"}), encoding="utf-8")
    (three["ops"] / "hindsight").mkdir()
    (three["ops"] / "hindsight" / "config.json").write_text(json.dumps({"mode": "local_external"}), encoding="utf-8")
    needs = needs_of(review(owner_client, what="hindsight", source="default", target=["ops"]).content.decode(), "ops")
    assert "HINDSIGHT_API_KEY" in needs and "required" in needs


def test_it_does_not_call_a_secret_required_when_the_copied_mode_does_not_need_it(owner_client, three) -> None:
    hindsight_source(three["default"])
    (three["default"] / "hindsight" / "config.json").write_text(json.dumps({"mode": "local_external"}),
                                                                 encoding="utf-8")
    needs = needs_of(review(owner_client, what="hindsight", source="default", target=["ops"]).content.decode(), "ops")
    assert "HINDSIGHT_API_KEY" in needs  # the source has it set: the target may want it too
    assert "required" not in needs


def test_it_copies_honcho_settings_into_the_targets_own_host_block_of_the_shared_file(owner_client, three) -> None:
    shared = three["default"] / "honcho.json"
    shared.write_text(json.dumps({"baseUrl": "http://127.0.0.1:8000",
                                  "hosts": {"hermes": {"workspace": "team", "recallMode": "tools",
                                                       "apiKey": SECRET}}}), encoding="utf-8")
    html = review(owner_client, what="honcho", source="default", target=["ops"]).content.decode()
    assert SECRET not in html
    done = apply_reviewed(owner_client, html, what="honcho", source="default", targets=["ops"])
    assert done.status_code == 200, done.content.decode()
    data = json.loads(shared.read_text(encoding="utf-8"))
    assert data["hosts"]["hermes"] == {"workspace": "team", "recallMode": "tools", "apiKey": SECRET}
    assert data["hosts"]["hermes_ops"]["workspace"] == "team"
    assert data["hosts"]["hermes_ops"]["recallMode"] == "tools"
    assert "apiKey" not in data["hosts"]["hermes_ops"]
    assert not (three["ops"] / "honcho.json").exists()  # never a local copy that would hide the shared file
