"""Shared fixtures: temporary agent homes, test personas and a real headless Chromium."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from provider_schemas.saving.locks import recover

# Under CI=true every property test draws the same examples on every run (a seed derived from the
# test itself), with no example database and with the health checks on, so a red run is
# reproduced by running the same test again; `print_blob` puts the failing example's
# @reproduce_failure line in the log.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI", "").lower() == "true":
    hypothesis_settings.load_profile("ci")

# The panels, commands and writer processes that tests start each import the project afresh. With
# bytecode writing off (PYTHONDONTWRITEBYTECODE, set on some machines) every one of those hundreds
# of processes compiles it again; the children of one test process (an xdist worker) share one
# bytecode folder outside the checkout instead.
_child_bytecode = tempfile.mkdtemp(prefix="memory-panel-bytecode-")
atexit.register(shutil.rmtree, _child_bytecode, True)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ["PYTHONPYCACHEPREFIX"] = _child_bytecode

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
ARTIFACTS_DIR = Path(__file__).resolve().parent.parent / "test-artifacts"
# Browser tests wait on conditions (an element, a URL, a request), never for a length of time. This
# bound only stops a hang, so it is far above what a loaded 2-core machine ever needs (a page that
# starts a process or a server there can take a minute).
BROWSER_TIMEOUT_MS = 180_000
DOCS_SCREENSHOTS_DIR = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs with ``HOME`` pointed at an empty folder.

    Some providers read and write shared files in the user's home directory
    (``~/.honcho/config.json``, ``~/.hindsight/config.json``), which a test must never touch.
    """
    path = tmp_path / "user-home"
    path.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("HERMES_HONCHO_HOST", raising=False)
    return path


@pytest.fixture(autouse=True)
def fresh_caches() -> Iterator[None]:
    """Schemas, file reads and history reads are cached per process (docs/caching.md); each test
    starts and ends with every cache empty."""
    from memory_core import caching

    caching.clear_all()
    yield
    caching.clear_all()


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """A request leaves its language active in the thread that served it (the test client runs in
    the test's thread): each test starts in the default language."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def dict_keyring() -> Iterator[object]:
    """An in-memory keyring installed as the process's keyring for this test."""
    import keyring

    from tests.keyrings import DictKeyring

    previous = keyring.get_keyring()
    backend = DictKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def real_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """A real Secret Service (gnome-keyring on a private D-Bus bus, about 0.1 s to start) as this
    process's keyring and its children's: empty, unlocked, and the test's alone.

    Each test gets its own: one shared by a worker's tests carried whatever a test left behind (a
    killed client, a page's keyring check still running) into the next, and when its daemon went
    away, every later keyring test of that worker failed with it. Missing tools skip the tests
    that need it on a developer's machine, and fail them under ``CI=true``: CI installs them, so
    a missing service there is a broken build, not a skip."""
    import keyring
    from keyring.backends import SecretService

    from tests.secret_service import SecretServiceSession, missing_tools

    missing = missing_tools()
    if missing:
        message = f"a real Secret Service needs {', '.join(missing)} (see .ci/run)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    service = SecretServiceSession()
    try:
        service.start()
    except Exception as exc:
        service.stop()
        if os.environ.get("CI") == "true":
            pytest.fail(f"the test Secret Service did not start: {exc}")
        pytest.skip(f"the test Secret Service did not start: {exc}")
    for name, value in service.environment().items():
        monkeypatch.setenv(name, value)
    previous = keyring.get_keyring()
    keyring.set_keyring(SecretService.Keyring())
    try:
        yield service
        gone = service.exited()
    finally:
        keyring.set_keyring(previous)
        service.stop()
    if gone:
        pytest.fail(f"the test Secret Service went away during the test: {gone}")


@pytest.fixture
def home(tmp_path: Path, settings, user_home: Path) -> Path:
    """An empty HERMES_HOME that the panel (views, commands) works on for this test."""
    path = tmp_path / "hermes"
    path.mkdir()
    recover(home=path)  # as ``serve`` does at start-up: the save lock exists from then on
    settings.HERMES_HOME = path
    return path


@pytest.fixture
def demo(home, owner_client):
    """The owner's signed-in client on a home holding the demo content (``serve --demo``)."""
    from admin_panel.demo import seed_demo_home
    from tests.demo_homes import seeded

    seeded(home, seed_demo_home)
    return owner_client


@pytest.fixture
def owner(django_user_model):
    """Staff persona: may change everything."""
    return django_user_model.objects.create_user(
        username="owner", password=PASSWORD, is_staff=True, is_superuser=True
    )


@pytest.fixture
def other_user(django_user_model):
    """Signed-in persona without staff rights."""
    return django_user_model.objects.create_user(username="other", password=PASSWORD)


@pytest.fixture
def viewer(django_user_model):
    """Persona in the viewers group: sees everything, changes nothing."""
    from django.contrib.auth.models import Group

    from admin_panel.permissions import VIEWERS_GROUP

    user = django_user_model.objects.create_user(username="viewer", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=VIEWERS_GROUP)[0])
    return user


@pytest.fixture
def viewer_client(client, viewer):
    client.force_login(viewer)
    return client


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


# --- browser -----------------------------------------------------------------------------------


def _chromium_missing_reason() -> str | None:
    if not os.path.exists(CHROMIUM):
        return f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install '.[test]')"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    reason = _chromium_missing_reason()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Browser tests must run in CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=BROWSER_TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        # Every context any test opens waits as long as the bound above, not Playwright's 30 s:
        # under load a click that starts a server-side process outlasts the default.
        new_context = chromium.new_context

        def new_context_with_bound(*args, **kwargs):
            context = new_context(*args, **kwargs)
            context.set_default_timeout(BROWSER_TIMEOUT_MS)
            return context

        chromium.new_context = new_context_with_bound
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request) -> Iterator[object]:
    """A fresh browser context and page; on failure a screenshot is kept in test-artifacts/."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    page = context.new_page()
    yield page
    outcome = getattr(request.node, "rep_call", None)
    if outcome is not None and outcome.failed:
        screenshot(page, f"FAILED-{request.node.name}")
    context.close()


def screenshot(page, name: str) -> Path:
    """Save a full-page PNG under test-artifacts/ and return its path."""
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]
    path = ARTIFACTS_DIR / f"{safe}.png"
    from playwright.sync_api import Error as PlaywrightError

    # A screenshot is an artifact, never what a test asserts. Chromium sometimes refuses a
    # full-page capture ("Unable to capture screenshot"); then the visible part is kept instead,
    # and if that fails too the test goes on without the picture.
    try:
        page.screenshot(path=str(path), full_page=True)
    except PlaywrightError:
        try:
            page.screenshot(path=str(path))
        except PlaywrightError as exc:
            warnings.warn(f"no screenshot {path.name}: {exc}", stacklevel=2)
    return path


def keep_for_docs(path: Path, *, issue: int) -> Path:
    """With ``DOCS_SCREENSHOTS=1``, copy a screenshot from test-artifacts/ to the documentation's
    ``docs/screenshots/issue-N/``; a normal run never changes a tracked file."""
    if os.environ.get("DOCS_SCREENSHOTS", "") in ("", "0"):
        return path
    target = DOCS_SCREENSHOTS_DIR / f"issue-{issue}"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, target / path.name)
    return target / path.name


@pytest.fixture
def signed_in_page(page, live_server, owner) -> object:
    """A page signed in as the owner through the real login form."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(owner.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    return page


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture
def copy_tree():
    """Copy a fixture directory into place (a helper for tests that build homes)."""

    def _copy(src: Path, dst: Path) -> Path:
        shutil.copytree(src, dst, dirs_exist_ok=True)
        return dst

    return _copy
