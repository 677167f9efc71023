"""Django settings for memory-panel.

Everything a deployment changes comes from the environment: ``HERMES_HOME`` (the agent's home),
``PANEL_DATA_DIR`` (the panel's own database and secret key, default ``HERMES_HOME/panel``),
``PANEL_DEBUG=1``, ``PANEL_ALLOWED_HOSTS`` (comma-separated, added to loopback) and
``PANEL_HTTPS=1`` (secure cookies, HSTS and redirect when served behind TLS).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from admin_panel.body_limits import SIGNED_IN_BODY_BYTES
from admin_panel.paths import resolve_hermes_home, resolve_panel_data_dir
from admin_panel.private_data import create_private_folder

BASE_DIR = Path(__file__).resolve().parent.parent

HERMES_HOME = resolve_hermes_home()
PANEL_DATA_DIR = resolve_panel_data_dir(HERMES_HOME)


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _hours(name: str, default: float) -> int:
    """Seconds from an environment variable given in hours; a clear start-up error when it is not one."""
    text = os.environ.get(name, "").strip()
    try:
        hours = float(text) if text else default
    except ValueError:
        hours = -1.0
    if not 0 < hours <= 24 * 365:
        raise ValueError(f"{name} must be a number of hours between 0 and 8760, not {text!r}")
    return int(hours * 3600)


def _load_or_create_secret_key(data_dir: Path) -> str:
    """A random key generated once and kept (mode 0600) beside the panel's database."""
    create_private_folder(data_dir)  # 0700; an existing folder is checked at start-up (private_data.py)
    key_file = data_dir / "secret_key"
    try:
        key = key_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        key = ""
    if len(key) >= 50:
        return key
    key = secrets.token_urlsafe(64)
    # O_EXCL: two processes starting at once must not both write; the loser re-reads.
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return key_file.read_text(encoding="utf-8").strip()
    os.fchmod(fd, 0o600)  # exactly 0600, whatever the umask took away
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(key)
    return key


SECRET_KEY = os.environ.get("PANEL_SECRET_KEY") or _load_or_create_secret_key(PANEL_DATA_DIR)
DEBUG = _truthy("PANEL_DEBUG")

ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"] + [
    host.strip() for host in os.environ.get("PANEL_ALLOWED_HOSTS", "").split(",") if host.strip()
]

INSTALLED_APPS = [
    # First, so its createsuperuser and changepassword (audited) override django.contrib.auth's.
    "admin_panel",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
]

MIDDLEWARE = [
    "admin_panel.middleware.SlowRequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "admin_panel.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "admin_panel.middleware.IdleTimeoutMiddleware",
    # After authentication (a profile's name is checked only for a signed-in person), before URL
    # resolution: takes /profile/<name>/ off the path and makes that profile the request's home.
    "admin_panel.profile_choice.ProfileMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, so that it sees a view's exception first: a full disk is answered in words (507).
    "admin_panel.middleware.DiskFullMiddleware",
]

ROOT_URLCONF = "admin_panel.urls"
WSGI_APPLICATION = "admin_panel.wsgi.application"
ASGI_APPLICATION = "admin_panel.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "admin_panel.context_processors.navigation",
            ],
        },
    }
]

DATABASES = {
    "default": {
        # Django's SQLite engine, making the data folder and database private before the first
        # connection (docs/security.md).
        "ENGINE": "admin_panel.private_sqlite",
        "NAME": PANEL_DATA_DIR / "panel.sqlite3",
        # WAL: readers never wait for the writer; synchronous=NORMAL is durable in WAL mode except
        # for the last commits on power loss, which for audit rows and sessions is acceptable.
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
        # Each request thread of `serve` keeps its connection: opening one (and its PRAGMAs and
        # SQL functions) cost a sixth of an API request's CPU (measured with py-spy).
        "CONN_MAX_AGE": None,
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "admin_panel" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# Served straight from the app's static folders by WhiteNoise: `serve` needs no collectstatic step.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Sessions are read on every request (the live view polls twice a second): keep them in the
# process cache, backed by the database, where only a digest of each session key is stored.
SESSION_ENGINE = "admin_panel.session_store"
# A signed-in session ends after this long without a request (PANEL_IDLE_TIMEOUT_HOURS, default 12):
# the session's expiry is pushed forward by IdleTimeoutMiddleware as the user keeps working.
PANEL_IDLE_TIMEOUT_SECONDS = _hours("PANEL_IDLE_TIMEOUT_HOURS", 12)
SESSION_COOKIE_AGE = PANEL_IDLE_TIMEOUT_SECONDS

# Cookies and headers. HttpOnly CSRF cookie: pages carry the token in the form or in the
# hx-headers attribute of <body>, never read from JavaScript.
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

if _truthy("PANEL_HTTPS"):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Submitting a domain to the browsers' HSTS preload list binds every subdomain for months;
    # that is the domain owner's decision, not something a panel should opt into.
    SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Panel features
# Directories (besides HERMES_HOME/plugins) whose config_schema.py files the schema preview may open.
PANEL_SCHEMA_PREVIEW_DIRS: list[Path] = [
    Path(p).expanduser().absolute()
    for p in os.environ.get("PANEL_SCHEMA_PREVIEW_DIRS", "").split(os.pathsep)
    if p.strip()
]
# Which secret store new secrets go to: "env_file" (HERMES_HOME/.env) or "keyring".
PANEL_SECRET_STORE = os.environ.get("PANEL_SECRET_STORE", "env_file")
SIGN_IN_LINK_MAX_AGE_SECONDS = 15 * 60
# The largest body Django reads; `serve` refuses larger ones (and smaller ones per address) before
# reading them: admin_panel/body_limits.py holds the table.
DATA_UPLOAD_MAX_MEMORY_SIZE = SIGNED_IN_BODY_BYTES

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "redact_secrets": {"()": "admin_panel.logging_filters.RedactSecretsFilter"},
        "drop_not_found": {"()": "admin_panel.logging_filters.DropNotFoundFilter"},
    },
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_secrets"]},
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {
        # Errors and refusals (403, 400); not a line per 404, which scanners would turn into a flood.
        "django.request": {"handlers": ["console"], "level": "WARNING", "propagate": False,
                           "filters": ["drop_not_found"]},
        # serve prints its own start and address lines; uvicorn's start-up chatter is left out.
        "uvicorn": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}


def _stream_limit(name: str, default: int) -> int:
    """A positive whole number of open live-update streams; a clear start-up error otherwise."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not 0 < int(text) <= 100_000:
        raise ValueError(f"{name} must be a whole number between 1 and 100000, not {text!r}")
    return int(text)


# Open live-update streams (one per visible tab under `serve`): each holds a connection and a
# thread. Past a limit the stream is refused with 429 and the page polls instead.
PANEL_STREAMS_PER_ACCOUNT = _stream_limit("PANEL_STREAMS_PER_ACCOUNT", 20)
PANEL_STREAMS_TOTAL = _stream_limit("PANEL_STREAMS_TOTAL", 200)
