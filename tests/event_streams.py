"""What every change stream must do, checked the same way for each: a signed-out request is sent to
sign in with no data, and a stream carries one fingerprint per change and nothing else."""

from __future__ import annotations

import re

FINGERPRINT_LINE = re.compile(r"^data: [0-9a-f]{16}$")


def stream_body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def assert_sent_to_sign_in_with_no_data(response) -> None:
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert b"data:" not in stream_body(response)


def assert_only_a_fingerprint(response, *hidden: str) -> None:
    """One ``data:`` line holding a fingerprint, and none of ``hidden`` (content, secrets) anywhere."""
    body = stream_body(response).decode()
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    assert response["Cache-Control"] == "no-store"
    data = [line for line in body.splitlines() if line.startswith("data:")]
    assert len(data) == 1 and FINGERPRINT_LINE.match(data[0]), body
    for text in hidden:
        assert text not in body


class OpenStream:
    """An event stream held open on a real server, read event by event as EventSource reads it."""

    def __init__(self, port: int, path: str, cookie: str) -> None:
        import http.client

        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.connection.request("GET", path, headers={"Cookie": cookie, "Accept": "text/event-stream"})
        self.response = self.connection.getresponse()

    def next_event(self) -> list[str]:
        """The lines of the next event (comment-only keep-alives are skipped)."""
        lines: list[str] = []
        while True:
            line = self.response.readline().decode("utf-8")
            assert line, "the stream ended"
            line = line.rstrip("\n")
            if line == "":
                if any(not part.startswith(":") for part in lines):
                    return lines
                lines = []
                continue
            lines.append(line)

    def data(self) -> str:
        """The ``data:`` value of the next event."""
        return next(line[len("data: "):] for line in self.next_event() if line.startswith("data: "))

    def close(self) -> None:
        self.connection.close()
