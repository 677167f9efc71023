"""No secret value ever leaves the server: not in a page, a JSON body, a header or a log line.

Unique marker secrets sit in ``.env``, in the keyring and in provider files' secret slots; then
every page and API route is requested (and the write paths are exercised with new marker values,
valid and invalid) while every response and log record is searched for a marker.
"""

from __future__ import annotations

import json
import logging
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from admin_panel.models import AuditEntry
from admin_panel.selectors.providers import home_key
from admin_panel.services.providers import set_secret_store
from provider_schemas import BUNDLED_PROVIDERS, keyring_service
from tests.providers_ui.browserless import as_post, form_fields
from tests.providers_ui.helpers import user_plugin, write

pytestmark = pytest.mark.django_db

MARK = "LEAKMARK"
ENV_SECRETS = {
    "HINDSIGHT_API_KEY": f"{MARK}-env-hindsight",
    "HONCHO_API_KEY": f"{MARK}-env-honcho",
    "MEM0_API_KEY": f"{MARK}-env-mem0",
    "RETAINDB_API_KEY": f"{MARK}-env-retaindb",
    "BRV_API_KEY": f"{MARK}-env-brv",
    "NOTES_API_KEY": f"{MARK}-env-notes",
}
KEYRING_SECRETS = {
    "SUPERMEMORY_API_KEY": f"{MARK}-keyring-supermemory",
    "OPENVIKING_API_KEY": f"{MARK}-keyring-openviking",
    "HINDSIGHT_LLM_API_KEY": f"{MARK}-keyring-llm",
}
NOTES_SCHEMA = '''
from plugins.memory.config_schema import KIND_SECRET, ProviderConfigSchema, ProviderField
CONFIG_SCHEMA = ProviderConfigSchema(name="notes", label="Notes", fields=(
    ProviderField("api_key", "API key", kind=KIND_SECRET, env_key="NOTES_API_KEY", required=True),
))
'''


def _routes(resolver: URLResolver, prefix: str = "") -> list[str]:
    found: list[str] = []
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            found += _routes(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append(prefix + str(pattern.pattern))
    return found


def _paths() -> list[str]:
    """Every named route, with each provider name (and 1 / sample) filled in."""
    names = [*BUNDLED_PROVIDERS, "builtin", "notes"]
    paths: list[str] = []
    for route in _routes(get_resolver()):
        if route.startswith("accounts/"):
            continue
        variants = [route]
        if "<str:name>" in route:
            variants = [route.replace("<str:name>", name) for name in names]
        for variant in variants:
            variant = re.sub(r"<int:\w+>", "1", variant)
            variant = re.sub(r"<(?:str:|slug:|path:)?\w+>", "sample", variant)
            paths.append("/" + variant)
    return paths


@pytest.fixture
def secret_home(home, dict_keyring):
    env_lines = "".join(f"{k}={v}\n" for k, v in ENV_SECRETS.items())
    write(home / ".env", "# secrets\n" + env_lines)
    for variable, value in KEYRING_SECRETS.items():
        dict_keyring.set_password(keyring_service(home), variable, value)
    # File slots that the plugins read before the environment.
    write(home / "hindsight" / "config.json", json.dumps({"mode": "cloud", "apiKey": f"{MARK}-file-hindsight"}))
    write(home / "mem0.json", json.dumps({"api_key": f"{MARK}-file-mem0"}))
    write(home / "honcho.json", json.dumps({"hosts": {"hermes": {"apiKey": f"{MARK}-file-honcho"}}}))
    write(home / "config.yaml", "memory:\n  provider: hindsight\n")
    user_plugin(home, "notes", NOTES_SCHEMA)
    set_secret_store(home=home, store="keyring")
    assert home_key(home)
    return home


def _assert_clean(response, where: str) -> None:
    body = response.content.decode("utf-8", "replace") if not getattr(response, "streaming", False) else ""
    assert MARK not in body, f"{where}: marker in the body"
    for header, value in response.items():
        assert MARK not in header and MARK not in value, f"{where}: marker in header {header}"


def test_it_never_shows_a_secret_in_any_page_api_response_header_or_log(
    owner_client, secret_home, caplog, dict_keyring
):
    caplog.set_level(logging.DEBUG)
    seen = 0
    for path in _paths():
        response = owner_client.get(path)
        _assert_clean(response, f"GET {path}")
        seen += response.status_code == 200
    assert seen > 20  # the pages really rendered

    # The form paths: review (a new secret and an invalid value), then a valid review and save.
    page = owner_client.get("/providers/hindsight/").content.decode()
    fields = form_fields(page, "/providers/hindsight/review/")
    new_secret = {"secret:api_key": "replace", "new:api_key": f"{MARK}-new-form"}
    invalid = owner_client.post("/providers/hindsight/review/", as_post(fields, **new_secret, **{"v:timeout": "x"}))
    _assert_clean(invalid, "invalid review")
    field = owner_client.post("/providers/hindsight/field/?key=timeout", as_post(fields, **new_secret))
    _assert_clean(field, "field validation")
    reviewed = owner_client.post("/providers/hindsight/review/", as_post(fields, **new_secret))
    _assert_clean(reviewed, "review")
    back = owner_client.post("/providers/hindsight/", as_post(form_fields(reviewed.content.decode(),
                                                                               "/providers/hindsight/save/")))
    _assert_clean(back, "back to the form")
    saved = owner_client.post(
        "/providers/hindsight/save/", as_post(form_fields(reviewed.content.decode(), "/providers/hindsight/save/"))
    )
    _assert_clean(saved, "save")
    _assert_clean(owner_client.get("/providers/hindsight/"), "after save")

    # The API write paths, valid and invalid, with secrets in the body.
    for body in (
        {"values": {"apiKey": f"{MARK}-new-api", "environment": "bogus", "dialecticMaxChars": "12x"}},
        {"values": {"apiKey": f"{MARK}-line\nbreak"}},
        {"values": {"apiKey": f"{MARK}-new-api-ok"}},
        {"values": {}, "clear": ["apiKey"]},
    ):
        response = owner_client.put(
            "/api/memory/providers/honcho/config", data=json.dumps(body), content_type="application/json"
        )
        _assert_clean(response, f"PUT honcho {response.status_code}")
    for name in ("notes", "supermemory", "hindsight"):
        response = owner_client.put(
            "/api/memory/provider", data=json.dumps({"provider": name}), content_type="application/json"
        )
        _assert_clean(response, f"activate {name}")

    for record in caplog.records:
        assert MARK not in record.getMessage(), record.getMessage()
        assert MARK not in str(record.exc_text or "")
    for details in AuditEntry.objects.values_list("details", flat=True):
        assert MARK not in json.dumps(details)
    # The writes really happened (into the keyring, the selected store), so the paths were exercised.
    stored = set(dict_keyring.entries.values())
    assert f"{MARK}-new-form" in stored
    assert "HINDSIGHT_API_KEY" not in (secret_home / ".env").read_text()
