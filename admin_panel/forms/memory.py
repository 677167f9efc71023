"""Forms of the live memory view. They only check the form controls; every rule about entries
(emptiness after stripping, budget, scanner, drift) is memory_core's, except that text which
would not read back as one entry is also named here, at the field (memory_core refuses it too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from admin_panel.selectors.memory import parse_ref
from memory_core.entries import CONTAINS_DELIMITER, delimiter_problem
from memory_core.pending import is_valid_id

# Far above any sane budget; a guard against absurd posts, not a memory rule.
MAX_ENTRY_FORM_CHARS = 200_000


def normalise_newlines(text: str) -> str:
    """Browsers submit textarea line breaks as CRLF; the store's format uses LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class EntryForm(forms.Form):
    content = forms.CharField(
        label=_("Entry text"),
        strip=False,
        max_length=MAX_ENTRY_FORM_CHARS,
        widget=forms.Textarea(attrs={"rows": 6, "class": "entry-input"}),
        help_text=_(
            "Plain text; line breaks are kept. The agent reads it as it is, so write it the way the "
            "agent should remember it."
        ),
        error_messages={"required": _("Write the text of the entry.")},
    )

    def clean_content(self) -> str:
        text = normalise_newlines(self.cleaned_data["content"])
        if not text.strip():
            raise forms.ValidationError(_("Write the text of the entry."))
        problem = delimiter_problem(text.strip())
        if problem == CONTAINS_DELIMITER:
            raise forms.ValidationError(
                _("An entry cannot contain a line with only § on it: the agent uses that line to separate entries.")
            )
        if problem is not None:
            raise forms.ValidationError(
                _(
                    "An entry cannot end with a line with only § on it: the agent would read that line as part of "
                    "the separator before the next entry."
                )
            )
        return text


class WellFormedValuesField(forms.MultipleChoiceField):
    """Several values, each accepted when ``is_valid`` says it is well formed (no fixed choices)."""

    def __init__(self, *, is_valid: Callable[[str], bool], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.is_valid = is_valid

    def valid_value(self, value: Any) -> bool:
        return isinstance(value, str) and self.is_valid(value)


class EntrySelectionForm(forms.Form):
    """References (``<target>:<key>``) of entries chosen for deletion. Whether a reference still
    names an entry is decided against the file, under the lock, not here."""

    entry = WellFormedValuesField(
        is_valid=lambda value: parse_ref(value) is not None,
        error_messages={
            "required": _("Select at least one entry."),
            "invalid_choice": _("The selection is not valid; go back and select again."),
        },
    )


class BackupSelectionForm(forms.Form):
    """Keys of entries of one backup file, chosen for restoring."""

    entry = forms.MultipleChoiceField(required=True, error_messages={"required": _("Select at least one entry.")})

    def __init__(self, *args: object, keys: list[str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["entry"].choices = [(key, key) for key in keys]
        self.fields["entry"].error_messages["invalid_choice"] = _("An entry you selected is no longer in this backup.")


class PendingActionForm(forms.Form):
    ACTIONS = (("approve", _("Approve")), ("reject", _("Reject")))

    action = forms.ChoiceField(choices=ACTIONS)
    pending_id = WellFormedValuesField(
        is_valid=is_valid_id,
        error_messages={
            "required": _("Select at least one pending write."),
            "invalid_choice": _("Pending ids are 8 lower-case hex characters."),
        },
    )
