"""The JSON API of docs/api.md: provider list, declared config GET/PUT, activation.

Payload shapes come from ``provider_schemas`` (its payload builders); these views only map
requests to those calls and exceptions to status codes. The provider-name guard runs before
anything touches a path.
"""

from __future__ import annotations

from pathlib import Path

from django.http import HttpRequest, HttpResponse

import provider_schemas
from admin_panel import responses
from admin_panel.agent_home import current_home
from admin_panel.api_auth import api_endpoint, api_error, api_json, api_json_bytes, read_json_body
from admin_panel.forms.declared import ProviderForm, api_form
from admin_panel.selectors import providers as selectors
from admin_panel.services import providers as services
from memory_core.home import InvalidProfileName, profile_home
from provider_schemas.config_schema import ProviderConfigSchema


def _home(request: HttpRequest) -> Path | HttpResponse:
    """The home the request works on: the panel's, or ``?profile=`` beside it (docs/api.md §Common rules)."""
    profile = request.GET.get("profile", "")
    base = current_home()
    try:
        home = profile_home(home=base, profile=profile, reserved=True)
    except InvalidProfileName as exc:
        return api_error(exc.detail, 400)
    if not Path(home).is_dir():
        return api_error(f"Profile '{profile}' does not exist.", 404)
    return Path(home)


def _unknown(name: str) -> HttpResponse:
    return api_error(f"Unknown memory provider: {name}", 404)


@api_endpoint(methods=("GET",))
def memory_list(request: HttpRequest) -> HttpResponse:
    home = _home(request)
    if isinstance(home, HttpResponse):
        return home
    store = selectors.secret_store_for(home=home)
    try:
        return api_json(provider_schemas.provider_list_payload(home=home, secret_store=store))
    except provider_schemas.SecretStoreUnavailable as exc:
        return api_error(f"Secret store unavailable: {exc.reason}", 503)


@api_endpoint(methods=("GET", "PUT"))
def provider_config(request: HttpRequest, name: str) -> HttpResponse:
    if not provider_schemas.is_provider_name(name):
        return _unknown(name)
    home = _home(request)
    if isinstance(home, HttpResponse):
        return home
    if request.method == "GET":
        return _config_get(home=home, name=name)
    return _config_put(request, home=home, name=name)


def _config_get(*, home: Path, name: str) -> HttpResponse:
    try:
        body = selectors.provider_config_answer(home=home, name=name, encode=api_json_bytes)
    except (provider_schemas.UnknownProvider, provider_schemas.InvalidProviderName):
        return api_json(provider_schemas.no_schema_payload(name))
    except provider_schemas.SecretStoreUnavailable as exc:
        return api_error(f"Secret store unavailable: {exc.reason}", 503)
    return HttpResponse(body, content_type="application/json")


def _config_put(request: HttpRequest, *, home: Path, name: str) -> HttpResponse:
    try:
        values, clear = provider_schemas.parse_put_body(read_json_body(request))
    except ValueError as exc:  # body is not JSON
        return api_error(str(exc), 422)
    except provider_schemas.BodyError as exc:
        return api_error(exc.text, 422)
    form = _declared_form(home=home, name=name)
    if form is not None and form.value_errors(values):
        # Refused by the form: the planner words the answer (every problem, 0.19.0's wording) and
        # writes nothing; what it accepts after all (a select's stored value) is saved below.
        outcome = services.review_provider_changes(home=home, name=name, values=values, clear=clear)
        if not outcome.ok:
            return responses.api_outcome(outcome, name=name)
    outcome = services.save_provider_changes(user=request.user, channel="api", home=home, name=name,
                                             values=values, clear=clear)
    return responses.api_outcome(outcome, name=name)


def _declared_form(*, home: Path, name: str) -> type[ProviderForm] | None:
    """The provider's generated form (one class per declaration), or None when it has no usable
    declaration: the save then answers as it always has (unknown provider, schema error)."""
    try:
        schema = provider_schemas.get_provider_config_schema(name, home=home)
    except provider_schemas.InvalidProviderName:
        return None
    return api_form(schema) if isinstance(schema, ProviderConfigSchema) else None


@api_endpoint(methods=("PUT",))
def memory_provider(request: HttpRequest) -> HttpResponse:
    """Activation: the only way the API changes ``memory.provider`` (docs/api.md §Activation)."""
    try:
        body = read_json_body(request)
    except ValueError as exc:
        return api_error(str(exc), 422)
    if not isinstance(body, dict):
        return api_error("Request body must be a JSON object", 422)
    name = body.get("provider", "")
    if name is None:
        name = ""
    if not isinstance(name, str):
        return api_error("'provider' must be a string", 422)
    home = _home(request)
    if isinstance(home, HttpResponse):
        return home
    try:
        active = services.activate_provider(user=request.user, channel="api", home=home, name=name)
    except provider_schemas.UnknownProvider:
        return api_error(f"Unknown memory provider '{name}'.", 400)
    except provider_schemas.InvalidProviderName:
        return api_error(f"Unknown memory provider '{name}'.", 400)
    except provider_schemas.NotReady as exc:
        extra: dict[str, object] = {}
        if exc.schema_error is not None:
            extra["schema_error"] = exc.schema_error.as_dict()
        else:
            extra["missing_secrets"] = exc.missing_secrets
        return api_error(str(exc), 400, **extra)
    except (provider_schemas.StorageParseError, provider_schemas.SecretStoreUnavailable,
            provider_schemas.SaveFailed) as exc:
        return responses.api_failure(exc, home=home)
    return api_json({"ok": True, "active": active})


@api_endpoint(methods=("GET", "PUT"))
def no_such_route(request: HttpRequest) -> HttpResponse:
    # docs/api.md §Common rules/§Common rules: a path with extra segments matches no route: 404 for GET, 405 for PUT.
    if request.method == "PUT":
        return api_error("Method Not Allowed", 405)
    return api_error("Not Found", 404)
