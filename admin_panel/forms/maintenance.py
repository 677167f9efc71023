"""Forms of the maintenance page. They check the form controls only; the store decides the rest."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from admin_panel.forms.memory import MAX_ENTRY_FORM_CHARS, EntrySelectionForm, normalise_newlines


class MergeForm(EntrySelectionForm):
    """The picked entries (references) and the text that replaces them; blank text deletes them."""

    STEPS = (("edit", "edit"), ("review", "review"), ("confirm", "confirm"))

    content = forms.CharField(
        label=_("Text that replaces the picked entries"),
        required=False,
        strip=False,
        max_length=MAX_ENTRY_FORM_CHARS,
        widget=forms.Textarea(attrs={"rows": 6, "class": "entry-input"}),
        help_text=_("Plain text; line breaks are kept. Leave it empty to delete the picked entries."),
    )
    step = forms.ChoiceField(choices=STEPS, required=False)

    def clean_content(self) -> str:
        return normalise_newlines(self.cleaned_data.get("content") or "")


MAX_AGE_DAYS = 36500


class AgeForm(forms.Form):
    """The age from which the findings list an entry as old (by provenance)."""

    older_than = forms.IntegerField(
        label=_("List entries written more than this many days ago"),
        required=False,
        min_value=1,
        max_value=MAX_AGE_DAYS,
        error_messages={"invalid": _("Enter a whole number of days, from 1 to 36500."),
                        "min_value": _("Enter a whole number of days, from 1 to 36500."),
                        "max_value": _("Enter a whole number of days, from 1 to 36500.")},
    )
