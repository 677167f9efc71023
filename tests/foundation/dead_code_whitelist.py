# ruff: noqa: B018  (a vulture whitelist is attribute reads by design)
"""Names the dead-code check (tests/foundation/test_dead_code.py) must not report: each is called
by a framework or a tool by name, never by our code. Read by vulture, never imported."""

from vulture.whitelist_utils import Whitelist

hooks = Whitelist()

# Django finds these through settings strings (INSTALLED_APPS, MIDDLEWARE, LOGGING, TEMPLATES).
hooks.AdminPanelConfig
hooks.ContentSecurityPolicyMiddleware
hooks.IdleTimeoutMiddleware
hooks.SlowRequestLogMiddleware
hooks.DiskFullMiddleware
hooks.ProfileMiddleware
hooks.process_exception
hooks.RedactSecretsFilter
hooks.DropNotFoundFilter
hooks.navigation
# Form hooks: clean_<field>, ChoiceField.valid_value and the widget/field/form overrides of the
# generated forms (admin_panel/forms/declared.py, widgets.py) are called by django.forms.
hooks.clean_content
hooks.valid_value
hooks.value_from_datadict
hooks.value_omitted_from_data
hooks.has_changed
hooks.validate
hooks.add_prefix
hooks.add_initial_prefix
hooks.format_value  # a widget's value as its template shows it (admin_panel/forms/widgets.py)
# Called by name from templates: a provider field as its group of label, help and control
# (Django's BoundField.as_field_group, overridden to reuse the rendering), and as an htmx
# out-of-band swap (templates/providers/partials/_field_response.html).
hooks.as_field_group
hooks.as_oob_field_group
# The session engine's overrides of Django's SessionStore.
hooks.acache_key
hooks._get_session_from_db
hooks._aget_session_from_db
# A package's lazy attributes (PEP 562).
hooks.__getattr__
hooks.__dir__
# Part of the declaration API a plugin's config_schema.py may call, as the agent's own class has it.
hooks.inline_fields

