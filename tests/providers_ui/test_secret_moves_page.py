"""Moving stored secrets from the Settings page and with ``manage.py secrets move``."""

from __future__ import annotations

import io
import json

import keyring
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from admin_panel.models import AuditEntry, HomePreference
from admin_panel.selectors.audit import describe
from admin_panel.services.providers import set_secret_store
from provider_schemas import keyring_service
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import write

pytestmark = pytest.mark.django_db

URL = "/settings/"
ENV_TEXT = "# mine\nOTHER=1\nMEM0_API_KEY=m0-page-value\nSUPERMEMORY_API_KEY=sm-page-value\n"


def entries(service, home):
    return {user: value for (svc, user), value in service.items().items() if svc == keyring_service(home)}


def test_it_lists_the_variables_then_moves_them_only_after_confirmation(owner_client, home, real_keyring):
    write(home / ".env", ENV_TEXT)
    set_secret_store(home=home, store="keyring")

    page = owner_client.get(URL).content.decode()
    assert "Move stored secrets to the keyring" in page
    assert "<code>MEM0_API_KEY</code>" in page and "<code>SUPERMEMORY_API_KEY</code>" in page
    assert "Confirm the move" not in page
    assert (home / ".env").read_text() == ENV_TEXT  # offering the move changed nothing

    review = owner_client.get(URL + "?move=keyring").content.decode()
    assert "Confirm the move" in review
    assert "m0-page-value" not in review and "sm-page-value" not in review

    moved = owner_client.post(URL, as_post(form_fields(review, URL + "#confirm-move")), follow=True)

    html = moved.content.decode()
    assert "Moved 2 stored secrets to the OS keyring" in html
    assert "m0-page-value" not in html
    assert entries(real_keyring, home) == {"MEM0_API_KEY": "m0-page-value", "SUPERMEMORY_API_KEY": "sm-page-value"}
    assert (home / ".env").read_text() == "# mine\nOTHER=1\n"
    entry = AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).latest("pk")
    assert entry.details["moved"] == ["MEM0_API_KEY", "SUPERMEMORY_API_KEY"]
    assert "m0-page-value" not in json.dumps(entry.details) + entry.summary
    assert describe(entry) == "Moved 2 stored secrets to the OS keyring: MEM0_API_KEY, SUPERMEMORY_API_KEY"
    after = owner_client.get(URL).content.decode()
    assert "Nothing to move: no stored secret is left in the .env file." in after
    assert 'href="?move=env_file#confirm-move"' in after  # and the way back is offered at once
    assert 'href="?move=keyring#confirm-move"' not in after


def test_it_refuses_a_confirmation_for_other_variables_than_those_stored(owner_client, home, real_keyring):
    write(home / ".env", ENV_TEXT)
    set_secret_store(home=home, store="keyring")
    review = owner_client.get(URL + "?move=keyring").content.decode()
    fields = form_fields(review, URL + "#confirm-move")
    write(home / ".env", ENV_TEXT + "HONCHO_API_KEY=hc-added-meanwhile\n")

    response = owner_client.post(URL, as_post(fields), follow=True)

    assert "Nothing was moved: the stored secrets changed" in response.content.decode()
    assert entries(real_keyring, home) == {}
    assert "MEM0_API_KEY=m0-page-value" in (home / ".env").read_text()


def test_it_lets_viewers_see_the_names_but_not_move(viewer_client, home, real_keyring):
    write(home / ".env", ENV_TEXT)
    set_secret_store(home=home, store="keyring")

    page = viewer_client.get(URL + "?move=keyring").content.decode()
    response = viewer_client.post(URL, {"action": "move_secrets", "to": "keyring",
                                        "variable": ["MEM0_API_KEY", "SUPERMEMORY_API_KEY"]})

    assert "<code>MEM0_API_KEY</code>" in page and "Confirm the move" not in page
    assert response.status_code == 403
    assert (home / ".env").read_text() == ENV_TEXT


def test_it_moves_from_the_command_line_and_back_with_the_names_only(home, real_keyring, capsys):
    write(home / ".env", ENV_TEXT)
    out = io.StringIO()

    call_command("secrets", "move", "--to", "keyring", "--yes", stdout=out)

    assert "MEM0_API_KEY, SUPERMEMORY_API_KEY" in out.getvalue()
    assert "m0-page-value" not in out.getvalue()
    assert HomePreference.objects.get(key="secret_store").value == "keyring"
    assert (home / ".env").read_text() == "# mine\nOTHER=1\n"

    call_command("secrets", "move", "--to", "env_file", "--yes", stdout=out)

    assert entries(real_keyring, home) == {}
    assert (home / ".env").read_text().startswith("# mine\nOTHER=1\n")
    assert HomePreference.objects.get(key="secret_store").value == "env_file"
    channels = set(AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).values_list("channel", flat=True))
    assert channels == {"command"}


def test_it_asks_for_confirmation_on_the_command_line_and_moves_nothing_without_it(home, real_keyring):
    write(home / ".env", ENV_TEXT)

    with pytest.raises(CommandError, match="confirm with --yes"):
        call_command("secrets", "move", "--to", "keyring", stdout=io.StringIO())

    assert (home / ".env").read_text() == ENV_TEXT
    assert entries(real_keyring, home) == {}


def test_it_moves_a_profiles_secrets_only(home, real_keyring):
    profile = home / "profiles" / "work"
    profile.mkdir(parents=True)
    write(profile / ".env", "MEM0_API_KEY=m0-work\n")
    write(home / ".env", ENV_TEXT)

    call_command("secrets", "move", "--to", "keyring", "--profile", "work", "--yes", stdout=io.StringIO())

    assert entries(real_keyring, profile) == {"MEM0_API_KEY": "m0-work"}
    assert (profile / ".env").read_text() == ""
    assert (home / ".env").read_text() == ENV_TEXT


def test_it_moves_every_profile_from_the_command_line_when_asked(home, real_keyring):
    profile = home / "profiles" / "work"
    profile.mkdir(parents=True)
    write(profile / ".env", "MEM0_API_KEY=m0-work\n")
    write(home / ".env", ENV_TEXT)
    out = io.StringIO()

    call_command("secrets", "move", "--to", "keyring", "--all-profiles", "--yes", stdout=out)

    assert "Moved 3 secret(s)" in out.getvalue()
    assert entries(real_keyring, profile) == {"MEM0_API_KEY": "m0-work"}
    assert entries(real_keyring, home) == {"MEM0_API_KEY": "m0-page-value", "SUPERMEMORY_API_KEY": "sm-page-value"}
    assert AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).count() == 2


def test_it_offers_each_direction_whichever_store_is_current(owner_client, home, real_keyring):
    write(home / ".env", ENV_TEXT)
    keyring.set_password(keyring_service(home), "HONCHO_API_KEY", "hc-in-keyring")
    assert HomePreference.objects.filter(key="secret_store").count() == 0  # the .env file is in use

    page = owner_client.get(URL).content.decode()

    to_keyring = page.split('id="move-to-keyring"')[1].split('id="move-to-env_file"')[0]
    to_env = page.split('id="move-to-env_file"')[1]
    assert "<code>MEM0_API_KEY</code>" in to_keyring and "<code>HONCHO_API_KEY</code>" not in to_keyring
    assert "<code>HONCHO_API_KEY</code>" in to_env and "<code>MEM0_API_KEY</code>" not in to_env
    assert "hc-in-keyring" not in page and "m0-page-value" not in page

    review = owner_client.get(URL + "?move=env_file").content.decode()
    assert review.count('name="variable:default"') == 1 and "hc-in-keyring" not in review
    moved = owner_client.post(URL, as_post(form_fields(review, URL + "#confirm-move")), follow=True)

    assert "Moved 1 stored secrets to the .env file: HONCHO_API_KEY" in moved.content.decode()
    assert entries(real_keyring, home) == {}
    assert (home / ".env").read_text() == ENV_TEXT + "HONCHO_API_KEY=hc-in-keyring\n"
    entry = AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).latest("pk")
    assert (entry.channel, entry.details["moved"], entry.details["new"]) == ("panel", ["HONCHO_API_KEY"], "env_file")


def _work_profile(home):
    profile = home / "profiles" / "work"
    profile.mkdir(parents=True)
    write(profile / ".env", "MEM0_API_KEY=m0-work\n")
    write(home / ".env", ENV_TEXT)
    return profile


def test_it_moves_every_profile_from_the_page_after_listing_each_profiles_names(owner_client, home, real_keyring):
    profile = _work_profile(home)

    assert "Every profile (2), all or nothing" in owner_client.get(URL).content.decode()
    review = owner_client.get(URL + "?profiles=all&move=keyring").content.decode()
    assert "Profile default" in review and "Profile work" in review
    assert review.count('name="variable:work"') == 1 and review.count('name="variable:default"') == 2
    assert "m0-work" not in review

    moved = owner_client.post(URL, as_post(form_fields(review, URL + "#confirm-move")), follow=True)

    assert "Moved 3 stored secrets to the OS keyring" in moved.content.decode()
    assert entries(real_keyring, profile) == {"MEM0_API_KEY": "m0-work"}
    assert entries(real_keyring, home) == {"MEM0_API_KEY": "m0-page-value", "SUPERMEMORY_API_KEY": "sm-page-value"}
    homes = set(AuditEntry.objects.filter(kind=AuditEntry.Kind.SECRET_STORE).values_list("home", flat=True))
    assert len(homes) == 2


def test_it_moves_no_profile_when_one_profiles_secrets_changed_since_the_review(owner_client, home, real_keyring):
    profile = _work_profile(home)
    review = owner_client.get(URL + "?profiles=all&move=keyring").content.decode()
    write(profile / ".env", "MEM0_API_KEY=m0-work\nHONCHO_API_KEY=hc-new\n")

    response = owner_client.post(URL, as_post(form_fields(review, URL + "#confirm-move")), follow=True)

    assert "Nothing was moved: the stored secrets changed" in response.content.decode()
    assert real_keyring.items() == {}
    assert (home / ".env").read_text() == ENV_TEXT


def test_it_warns_in_the_review_when_honchos_top_level_key_would_win_after_the_move(owner_client, home, real_keyring):
    write(home / ".env", "HONCHO_API_KEY=hc-host\n")
    write(home / "honcho.json", json.dumps({"apiKey": "hc-root", "hosts": {"hermes": {"apiKey": "hc-host"}}}))

    review = owner_client.get(URL + "?move=keyring").content.decode()

    assert "honcho.json also holds an API key at its top level" in review
    assert "instead of HONCHO_API_KEY" in review
    assert "hc-root" not in review and "hc-host" not in review
    out = io.StringIO()
    call_command("secrets", "move", "--to", "keyring", "--yes", stdout=out)
    assert "Warning: honcho.json also holds an API key at its top level" in out.getvalue()
    assert "hc-root" not in out.getvalue()
