"""The panel's own state. The agent's files are never mirrored here: they stay the truth."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def token_digest(token: str) -> str:
    """Tokens are stored as SHA-256 digests only: a copy of the database signs nobody in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SignInLink(models.Model):
    """A one-time link: the first-run link ``serve`` prints while no account exists, an
    invitation to a new account with a role, or a password reset for one account."""

    class Purpose(models.TextChoices):
        FIRST_RUN = "first_run", _("First run")
        INVITATION = "invitation", _("Invitation")
        PASSWORD_RESET = "password_reset", _("Password reset")

    token_digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)
    purpose = models.CharField(max_length=20, choices=Purpose.choices, default=Purpose.FIRST_RUN)
    # The role an invitation gives ("admin" or "viewer"); empty for the other purposes.
    role = models.CharField(max_length=10, blank=True)
    # The account a password reset is for.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="account_links"
    )
    # Who created an invitation, as the audit names them (an account, or the operating-system
    # account that ran the command), so the People page can show it after the account is gone.
    invited_by = models.CharField(max_length=150, blank=True)
    # When an admin withdrew the link before it was used: it then opens nothing.
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"sign-in link created {self.created_at:%Y-%m-%d %H:%M}"


class ApiToken(models.Model):
    """A token for scripts, sent as ``X-Hermes-Session-Token`` or ``Authorization: Bearer``."""

    name = models.CharField(max_length=100)
    token_digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class SecretWrite(models.Model):
    """When the panel last wrote a secret variable of a home (the ``set_at`` the API reports)."""

    home = models.CharField(max_length=4096)
    variable = models.CharField(max_length=255)
    set_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["home", "variable"], name="one_set_at_per_secret")]

    def __str__(self) -> str:
        return f"{self.variable} set {self.set_at:%Y-%m-%d %H:%M}"


class HomePreference(models.Model):
    """A per-home panel choice, such as which secret store new secrets go to."""

    home = models.CharField(max_length=4096)
    key = models.CharField(max_length=100)
    value = models.CharField(max_length=1000)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["home", "key"], name="one_value_per_home_key")]

    def __str__(self) -> str:
        return f"{self.key}={self.value}"


class AuditEntry(models.Model):
    """One change made through the panel, the API or a management command.

    ``details`` never holds a secret value: secret changes are recorded as set / replaced /
    cleared with the store that holds them.
    """

    class Kind(models.TextChoices):
        PROVIDER_SETTINGS = "provider_settings", _("Provider settings")
        ACTIVATION = "activation", _("Activation")
        MEMORY_SETTINGS = "memory_settings", _("Memory settings")
        MEMORY_ENTRY = "memory_entry", _("Memory entry")
        APPROVAL = "approval", _("Pending write")
        REVERT = "revert", _("Revert")
        SECRET_STORE = "secret_store", _("Secret store")
        API_TOKEN = "api_token", _("API token")
        ACCOUNT = "account", _("Account")
        SESSION_EXPORT = "session_export", _("Session export")
        INVITATION = "invitation", _("Invitation")
        ROLE = "role", _("Role")
        ACCESS = "access", _("Access")
        RESET_LINK = "reset_link", _("Password reset link")

    class Channel(models.TextChoices):
        PANEL = "panel", _("Panel")
        API = "api", _("API")
        COMMAND = "command", _("Command")

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_entries"
    )
    username = models.CharField(max_length=150, blank=True)
    # The role the account had when it acted ("admin", "viewer"; "" for commands and old rows), so
    # a later role change does not rewrite history.
    actor_role = models.CharField(max_length=10, blank=True)
    channel = models.CharField(max_length=10, choices=Channel.choices)
    home = models.CharField(max_length=4096)
    # The agent profile of ``home`` ("default", a profile's name, "custom"), kept so the log can be
    # filtered by profile.
    profile = models.CharField(max_length=64, blank=True, db_index=True)
    kind = models.CharField(max_length=30, choices=Kind.choices, db_index=True)
    provider = models.CharField(max_length=64, blank=True, db_index=True)
    summary = models.CharField(max_length=500)
    details = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.username or '-'} {self.summary}"


class BudgetSample(models.Model):
    """A store's character count as the panel saw it, recorded when it differs from the last
    sample of that store (the maintenance page's budget history)."""

    home = models.CharField(max_length=4096)
    target = models.CharField(max_length=10)
    chars = models.PositiveIntegerField()
    limit = models.IntegerField()
    recorded_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["recorded_at", "pk"]
        indexes = [models.Index(fields=["home", "target", "recorded_at"], name="budget_sample_store_time")]

    def __str__(self) -> str:
        return f"{self.target} {self.chars}/{self.limit} at {self.recorded_at:%Y-%m-%d %H:%M}"
