"""Login throttling against a real server: the client address is the socket's, so forged
X-Forwarded-For headers do not buy more attempts, and the lockout message never says whether
the account exists."""

from __future__ import annotations

import re

import pytest

from tests.faults.panel import PANEL_PASSWORD, Browser, prepare_panel, serve

pytestmark = pytest.mark.slow

LOCKED = "Too many failed sign-in attempts"


def _attempt(base: str, username: str, password: str, forwarded: str) -> tuple[int, str]:
    browser = Browser(base)
    browser.request("GET", "/accounts/login/")
    status, body, _headers = browser.request("POST", "/accounts/login/", {"username": username, "password": password},
                                             headers={"X-Forwarded-For": forwarded, "X-Real-IP": forwarded})
    return status, body


def _errors(body: str) -> list[str]:
    return re.findall(r"Please enter a correct username and password[^<]*|Too many failed sign-in attempts[^<]*", body)


def test_it_locks_out_by_username_and_by_address_whatever_the_forwarded_headers_say(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    with serve(home=home, data_dir=data) as server:
        base = f"http://127.0.0.1:{server.port}"
        by_user = [_attempt(base, "owner", f"wrong-{i}", f"10.0.{i}.1") for i in range(6)]
        right_password = _attempt(base, "owner", PANEL_PASSWORD, "10.9.9.9")
        unknown = [_attempt(base, "nobody-here", f"wrong-{i}", f"10.1.{i}.1") for i in range(6)]
        # 10 failures were counted against this address so far; 10 more reach the limit of 20.
        spread = [_attempt(base, f"user-{i}", "wrong", f"172.16.{i}.1") for i in range(11)]

    assert [status for status, _body in by_user] == [200] * 5 + [429]
    assert right_password[0] == 429 and LOCKED in right_password[1]
    # An unknown name is answered exactly like a real one, lockout included.
    assert [status for status, _body in unknown] == [200] * 5 + [429]
    assert _errors(unknown[0][1]) == _errors(by_user[0][1])
    assert _errors(unknown[5][1]) == _errors(by_user[5][1])
    # 20 failures from one address (whatever X-Forwarded-For claims) lock the address itself.
    assert [status for status, _body in spread] == [200] * 10 + [429]
    assert "sessionid" not in "".join(body for _status, body in spread)


def _attempt_from(port: int, source: str, username: str, password: str) -> int:
    """A sign-in attempt over a connection from the local address ``source`` (any of 127.0.0.0/8)."""
    import http.client
    import urllib.parse

    def exchange(method: str, body: str = "", headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=180, source_address=(source, 0))
        connection.request(method, "/accounts/login/", body=body or None, headers=headers or {})
        response = connection.getresponse()
        response.read()
        connection.close()
        return response

    cookie = exchange("GET").getheader("Set-Cookie", "")
    token = re.search(r"csrftoken=([^;]+)", cookie).group(1)
    form = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
    return exchange("POST", form, {"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={token}",
                                   "Referer": f"http://127.0.0.1:{port}/"}).status


def test_it_counts_attempts_from_every_loopback_address_as_one_client(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    prepare_panel(home=home, data_dir=data)
    with serve(home=home, data_dir=data) as server:
        spread = [_attempt_from(server.port, f"127.0.{i}.2", f"user-{i}", "wrong") for i in range(20)]
        right_password = _attempt_from(server.port, "127.0.0.1", "owner", PANEL_PASSWORD)

    assert spread == [200] * 20
    assert right_password == 429
