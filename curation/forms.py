"""Forms of the curation screens (validation only; the services do the work)."""

from __future__ import annotations

from django import forms

from .confirm import CONFIRM_REASON


def parse_ids(values: list[str]) -> list[int]:
    """Researcher ids from query/form values (``ids=1,2`` or repeated ``ids``); bad ones dropped."""
    out: list[int] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part.isdigit():
                out.append(int(part))
    return sorted(set(out))


class MergeForm(forms.Form):
    """Survivor, reason and the ORCID override of a merge confirmation."""

    survivor = forms.IntegerField()
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000, strip=True
    )
    override_orcid = forms.BooleanField(
        required=False, label="They are one person despite different ORCID iDs (say why in the reason)"
    )


class SplitForm(forms.Form):
    """What to move, where, and why."""

    TARGET_CHOICES = [("new", "A new researcher"), ("existing", "An existing researcher (id)")]

    authorships = forms.TypedMultipleChoiceField(coerce=int, choices=(), widget=forms.CheckboxSelectMultiple)
    identities = forms.TypedMultipleChoiceField(
        coerce=int, choices=(), widget=forms.CheckboxSelectMultiple, required=False
    )
    target = forms.ChoiceField(choices=TARGET_CHOICES, initial="new", widget=forms.RadioSelect)
    display_name = forms.CharField(required=False, max_length=300, label="Name of the new researcher")
    target_id = forms.IntegerField(required=False, min_value=1, label="Existing researcher id")
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000, strip=True
    )

    def __init__(self, *args, authorship_choices=(), identity_choices=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["authorships"].choices = authorship_choices
        self.fields["identities"].choices = identity_choices

    def clean(self) -> dict:
        data = super().clean()
        if data.get("target") == "existing" and not data.get("target_id"):
            self.add_error("target_id", "Give the id of the researcher to move the authorships to.")
        return data


class ReasonForm(forms.Form):
    """A required reason (undo)."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000, strip=True
    )


class DistinctForm(forms.Form):
    """A "not the same person" decision from the same-name queue (one click: reason prefilled)."""

    a = forms.IntegerField(min_value=1)
    b = forms.IntegerField(min_value=1)
    reason = forms.CharField(max_length=2000, strip=True, initial="Not the same person (same-name queue)")


class ConfirmForm(forms.Form):
    """A one-click confirmation from the review queue: the researcher the editor saw the link
    to (a link moved since is refused) and the prefilled reason."""

    researcher = forms.IntegerField(min_value=1)
    reason = forms.CharField(max_length=2000, strip=True, initial=CONFIRM_REASON)


class ReassignForm(forms.Form):
    """Where an unconfirmed link goes: ``target`` is ``new``, ``id`` (``target_id``) or the
    id of one of the name block's other researchers (offered as choices)."""

    target = forms.ChoiceField(widget=forms.RadioSelect)
    target_id = forms.IntegerField(required=False, min_value=1, label="Researcher id")
    display_name = forms.CharField(required=False, max_length=300, label="Name of the new researcher")
    researcher = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000, strip=True
    )

    def __init__(self, *args, others=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["target"].choices = [
            *((str(r.pk), f"{r.display_name} (#{r.pk}, {r.paper_count} papers)") for r in others),
            ("id", "Another existing researcher (id)"),
            ("new", "A new researcher"),
        ]

    def clean(self) -> dict:
        data = super().clean()
        target = data.get("target")
        if target == "id" and not data.get("target_id"):
            self.add_error("target_id", "Give the id of the researcher to move the authorship to.")
        data["target_researcher"] = (
            None if target == "new" else data.get("target_id") if target == "id" else int(target or 0) or None
        )
        return data
