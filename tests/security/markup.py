"""Parse a rendered page and list what a strict Content-Security-Policy would block or what
could run script: inline scripts, style attributes and elements, event-handler attributes,
``hx-on`` attributes and ``javascript:`` URLs."""

from __future__ import annotations

from html.parser import HTMLParser

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "hx-get", "hx-post", "hx-put", "hx-delete", "data"}


class _Inspector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self._script_with_src: list[bool] = []

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            name = name.lower()
            text = (value or "").strip().lower()
            if name == "style":
                self.problems.append(f"style attribute on <{tag}>")
            elif name.startswith("on"):
                self.problems.append(f"event handler {name} on <{tag}>")
            elif name.startswith(("hx-on", "data-hx-on")):
                self.problems.append(f"{name} on <{tag}> (needs eval)")
            elif name in URL_ATTRIBUTES and text.startswith(("javascript:", "vbscript:", "data:text/html")):
                self.problems.append(f"script URL in {name} on <{tag}>")
            elif name in ("hx-vals", "hx-vars") and text.startswith(("js:", "javascript:")):
                self.problems.append(f"script in {name} on <{tag}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)
        if tag == "script":
            self._script_with_src.append(any(n == "src" and v for n, v in attrs))
            if not self._script_with_src[-1]:
                self.problems.append("inline <script> without src")
        elif tag == "style":
            self.problems.append("<style> element")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script_with_src:
            self._script_with_src.pop()

    def handle_data(self, data: str) -> None:
        if self._script_with_src and self._script_with_src[-1] and data.strip():
            self.problems.append("<script src> with inline content")


def csp_problems(html: str) -> list[str]:
    inspector = _Inspector()
    inspector.feed(html)
    inspector.close()
    return inspector.problems
