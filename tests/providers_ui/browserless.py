"""Submit the panel's HTML forms the way a browser without JavaScript would.

``form_fields(html, action)`` returns the successful controls of the form whose ``action`` is
given, as a list of (name, value) pairs in document order: text inputs, hidden inputs, checked
checkboxes and radios, the selected (not disabled) option of each select, textareas. Disabled
controls are left out, as browsers do.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _FormParser(HTMLParser):
    def __init__(self, action: str) -> None:
        super().__init__(convert_charrefs=True)
        self.action = action
        self.inside = False
        self.done = False
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._select_disabled = False
        self._options: list[tuple[str, bool, bool]] = []  # value, selected, disabled
        self._option: dict[str, str | bool] | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form" and not self.done and a.get("action") == self.action:
            self.inside = True
            return
        if not self.inside:
            return
        disabled = "disabled" in a
        if tag == "input":
            kind = a.get("type", "text")
            name = a.get("name")
            if not name or disabled or kind in ("submit", "button", "reset"):
                return
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
                return
            self.fields.append((name, a.get("value", "")))
        elif tag == "select":
            self._select = a.get("name") if not disabled else None
            self._options = []
        elif tag == "option" and self._select is not None:
            self._option = {"value": a.get("value"), "selected": "selected" in a, "disabled": disabled}
            self._text = []
        elif tag == "textarea":
            self._textarea = a.get("name") if not disabled else None
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._textarea is not None or self._option is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if not self.inside:
            return
        if tag == "form":
            self.inside = False
            self.done = True
        elif tag == "option" and self._option is not None:
            value = self._option["value"]
            text = "".join(self._text).strip()
            self._options.append((str(value) if value is not None else text, bool(self._option["selected"]),
                                  bool(self._option["disabled"])))
            self._option = None
        elif tag == "select" and self._select is not None:
            chosen = [o for o in self._options if o[1]]
            if not chosen:
                chosen = [o for o in self._options if not o[2]][:1]
            for value, _selected, disabled in chosen[-1:]:
                if not disabled:
                    self.fields.append((self._select, value))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            self.fields.append((self._textarea, text[1:] if text.startswith("\n") else text))
            self._textarea = None


def form_fields(html: str, action: str) -> list[tuple[str, str]]:
    parser = _FormParser(action)
    parser.feed(html)
    if not parser.done:
        raise AssertionError(f"no form with action {action!r} in the page")
    return parser.fields


def as_post(fields: list[tuple[str, str]], **changes: str | None) -> dict[str, list[str]]:
    """The pairs as Django test-client data, with some names replaced (None removes a name).
    For a checkbox switch pass ``"v:key"`` the single value wanted."""
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = [value]
    return data


def post_form(client, page_html: str, action: str, **changes: str | None):
    """Fill the form of ``page_html`` that posts to ``action`` and submit it."""
    data = as_post(form_fields(page_html, action), **changes)
    return client.post(action, data)
