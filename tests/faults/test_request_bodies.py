"""Request bodies on a real server over a real socket: a request runs only once its whole body
arrived, and a body over its address's limit (or a large one from someone not signed in) is
answered before it is read."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import time
import urllib.parse
from pathlib import Path

import pytest

from admin_panel.body_limits import PUBLIC_BODY_BYTES, SIGNED_IN_BODY_BYTES
from tests.faults.panel import PANEL_PASSWORD, Browser, prepare_panel, serve

pytestmark = pytest.mark.slow

# Only stops a hang (an answer that never comes, a connection the server never closes).
DEADLINE_SECONDS = 180


@pytest.fixture(scope="module")
def panel(tmp_path_factory):
    """One real server with a single request thread: requests run one after another in the order
    the server received them, so a request sent later shows that an earlier one has been handled."""
    root = tmp_path_factory.mktemp("bodies")
    home, data = root / "home", root / "data"
    prepare_panel(home=home, data_dir=data)
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_text("Old fact.")
    with serve(home=home, data_dir=data, threads=1) as server:
        browser = Browser(f"http://127.0.0.1:{server.port}")
        browser.sign_in()
        yield home, data, server, browser


def _cookie(browser: Browser, name: str) -> str:
    return next(cookie.value for cookie in browser.jar if cookie.name == name)


def _signed_in_headers(browser: Browser) -> str:
    return (f"Cookie: sessionid={_cookie(browser, 'sessionid')}; csrftoken={_cookie(browser, 'csrftoken')}\r\n"
            f"X-CSRFToken: {_cookie(browser, 'csrftoken')}\r\n")


def _form(browser: Browser, **fields: str) -> bytes:
    # The token first: a body cut short still carries it, so only the cut decides what happens.
    return urllib.parse.urlencode({"csrfmiddlewaretoken": _cookie(browser, "csrftoken"), **fields}).encode()


def _head(method: str, path: str, *, extra: str = "", length: int | None = None, chunked: bool = False) -> bytes:
    lines = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    if length is not None:
        lines += f"Content-Length: {length}\r\n"
    if chunked:
        lines += "Transfer-Encoding: chunked\r\n"
    return (lines + extra + "\r\n").encode("latin-1")


def _connect(server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE_SECONDS)
    sock.settimeout(DEADLINE_SECONDS)
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], str]:
    """Status, headers and body of the answer; the server closes the connection after it."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    # Sizes are written with a no-break space ("64.0 KB").
    return int(status_line.split()[1]), headers, body.decode("utf-8", "replace").replace("\xa0", " ")


def _audit_rows(data: Path) -> int:
    with contextlib.closing(sqlite3.connect(data / "panel.sqlite3")) as database:
        return database.execute("SELECT count(*) FROM admin_panel_auditentry").fetchone()[0]


def _server_side_closed(server_port: int, client_port: int) -> None:
    """Wait until the server has closed its end of the connection from ``client_port`` (it is no
    longer ESTABLISHED or CLOSE_WAIT in /proc/net/tcp): it has seen the client go away."""
    local = f"0100007F:{server_port:04X}"
    remote = f"0100007F:{client_port:04X}"
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        rows = [row.split() for row in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        if not any(r[1] == local and r[2] == remote and r[3] in {"01", "08"} for r in rows):
            return
        time.sleep(0.02)
    raise AssertionError("the server never closed the connection the client left")


def _abandon(server, request: bytes) -> None:
    """Send ``request`` (headers and part of a body) and go away."""
    sock = _connect(server)
    client_port = sock.getsockname()[1]
    sock.sendall(request)
    sock.close()
    _server_side_closed(server.port, client_port)


def _add_marker(browser: Browser, text: str) -> None:
    """A whole add, handled after anything the server received before it (one request thread)."""
    status, body, _headers = browser.request("POST", "/memory/memory/add/", {"content": text})
    assert status == 302, (status, body[:300])


def test_it_saves_nothing_when_a_body_stops_short_of_its_content_length(panel):
    home, data, server, browser = panel
    rows = _audit_rows(data)
    body = _form(browser, content="Half sent fact that must never be stored in full or in part")

    _abandon(server, _head("POST", "/memory/memory/add/", extra=_signed_in_headers(browser), length=len(body))
             + body[: len(body) - 30])
    _add_marker(browser, "Marker after the half sent body.")

    stored = (home / "memories" / "MEMORY.md").read_text()
    assert "Half sent" not in stored
    assert "Marker after the half sent body." in stored
    assert _audit_rows(data) == rows + 1  # the marker's add alone


def test_it_saves_nothing_when_a_chunked_body_ends_without_its_last_chunk(panel):
    home, data, server, browser = panel
    rows = _audit_rows(data)
    body = _form(browser, content="Chunked fact whose last chunk never came")
    first = body[: len(body) - 10]

    _abandon(server, _head("POST", "/memory/memory/add/", extra=_signed_in_headers(browser), chunked=True)
             + f"{len(first):x}\r\n".encode() + first + b"\r\n")
    _add_marker(browser, "Marker after the cut chunked body.")

    stored = (home / "memories" / "MEMORY.md").read_text()
    assert "Chunked fact" not in stored
    assert "Marker after the cut chunked body." in stored
    assert _audit_rows(data) == rows + 1


def test_it_refuses_a_200_mb_sign_in_post_before_reading_its_body(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        # Headers only: an answer can come only from a server that does not wait for the body.
        sock.sendall(_head("POST", "/accounts/login/", length=200 * 1024 * 1024))
        status, headers, text = _answer(sock)

    assert status == 413
    assert "too large" in text and "64.0 KB" in text and "Nothing was saved" in text
    assert headers["connection"] == "close"


def test_it_refuses_a_large_form_post_without_a_session_before_reading_it(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("POST", "/memory/memory/add/", length=2 * 1024 * 1024))
        status, headers, _text = _answer(sock)

    assert status == 302
    assert headers["location"] == "/accounts/login/?next=/memory/memory/add/"


def test_it_refuses_a_large_form_post_without_its_csrf_cookie_before_reading_it(panel):
    _home, _data, server, browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("POST", "/memory/memory/add/", length=2 * 1024 * 1024,
                           extra=f"Cookie: sessionid={_cookie(browser, 'sessionid')}\r\n"))
        status, _headers, text = _answer(sock)

    assert status == 403
    assert "security cookie" in text and "nothing was saved" in text


def test_it_refuses_a_large_api_body_with_a_wrong_token_before_reading_it(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("PUT", "/api/memory/provider", length=1024 * 1024,
                           extra="X-Hermes-Session-Token: not-a-token\r\n"))
        status, _headers, text = _answer(sock)

    assert status == 401
    assert '"Unauthorized"' in text


def test_it_refuses_a_body_for_an_event_stream_before_reading_it(panel):
    _home, _data, server, browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("GET", "/memory/events/", length=10 * 1024 * 1024, extra=_signed_in_headers(browser)))
        status, _headers, text = _answer(sock)

    assert status == 413
    assert "takes no request body" in text


def test_it_signs_in_with_a_body_of_exactly_the_limit_and_refuses_one_byte_more(panel):
    _home, _data, server, _browser = panel
    fresh = Browser(f"http://127.0.0.1:{server.port}")
    fresh.request("GET", "/accounts/login/")
    form = _form(fresh, username="owner", password=PANEL_PASSWORD) + b"&padding="
    body = form + b"x" * (PUBLIC_BODY_BYTES - len(form))

    status, _text, headers = fresh.request("POST", "/accounts/login/", body=body,
                                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 302 and {k.lower(): v for k, v in headers.items()}["location"] == "/"

    with _connect(server) as sock:
        sock.sendall(_head("POST", "/accounts/login/", length=PUBLIC_BODY_BYTES + 1,
                           extra=f"Cookie: csrftoken={_cookie(fresh, 'csrftoken')}\r\n"))
        status, _headers, text = _answer(sock)
    assert status == 413
    assert "this address accepts at most 64.0 KB" in text


def test_it_cuts_a_chunked_sign_in_body_off_at_the_limit(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        # One chunk announced larger than the limit; the answer comes once the limit is passed,
        # with the rest of the chunk never sent.
        sock.sendall(_head("POST", "/accounts/login/", chunked=True) + f"{PUBLIC_BODY_BYTES * 4:x}\r\n".encode()
                     + b"x" * (PUBLIC_BODY_BYTES + 1))
        status, _headers, text = _answer(sock)

    assert status == 413
    assert "this address accepts at most 64.0 KB" in text


def test_it_saves_a_large_signed_in_post_just_under_the_limit_and_refuses_one_just_over(panel):
    home, _data, server, browser = panel
    form = _form(browser, content="A fact sent in a large body.") + b"&padding="
    body = form + b"x" * (SIGNED_IN_BODY_BYTES - len(form))

    status, text, _headers = browser.request("POST", "/memory/memory/add/", body=body,
                                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 302, text[:300]
    assert "A fact sent in a large body." in (home / "memories" / "MEMORY.md").read_text()

    with _connect(server) as sock:
        sock.sendall(_head("POST", "/memory/memory/add/", length=SIGNED_IN_BODY_BYTES + 1,
                           extra=_signed_in_headers(browser)))
        status, _headers, text = _answer(sock)
    assert status == 413
    assert "this address accepts at most 2.5 MB" in text


def test_it_answers_an_api_body_over_the_limit_in_json(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("PUT", "/api/memory/provider", length=SIGNED_IN_BODY_BYTES + 1))
        status, headers, text = _answer(sock)

    assert status == 413
    assert headers["content-type"] == "application/json"
    assert "Request body is too large" in text and str(SIGNED_IN_BODY_BYTES) in text


def test_it_still_saves_an_ordinary_post(panel):
    home, data, _server, browser = panel
    rows = _audit_rows(data)

    _add_marker(browser, "An ordinary fact.")

    assert "An ordinary fact." in (home / "memories" / "MEMORY.md").read_text()
    assert _audit_rows(data) == rows + 1


def test_it_says_a_body_is_too_large_in_the_reader_s_language(panel):
    _home, _data, server, _browser = panel
    with _connect(server) as sock:
        sock.sendall(_head("POST", "/accounts/login/", length=PUBLIC_BODY_BYTES + 1,
                           extra="Cookie: django_language=zh-hans\r\n"))
        status, _headers, text = _answer(sock)

    assert status == 413
    assert text.startswith("请求过大") and "未保存任何内容" in text
