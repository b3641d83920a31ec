"""Forms of the account pages."""

from __future__ import annotations

import contextlib

from django import forms

from institutions.models import Institution
from institutions.ror import InvalidRorId, normalize_ror_id
from papers.models import Collaboration
from papers.search_filters import query_is_empty
from papers.selectors import category_canonical
from researchers.models import Researcher
from researchers.orcid import InvalidOrcid, normalize_orcid
from researchers.selectors import researcher_resolve
from wove.ids import id_or_none

from .models import DigestFrequency, SavedSearch

# The years a search filter takes, as the search page reads them (pages.search).
YEAR_MIN, YEAR_MAX = 1986, 2100


class DigestSettingsForm(forms.Form):
    """How often the digest e-mail comes: daily, weekly or never."""

    digest_frequency = forms.ChoiceField(
        choices=DigestFrequency.choices, widget=forms.RadioSelect, label="Digest e-mail"
    )


class DeleteAccountForm(forms.Form):
    """Account deletion, confirmed with the current password."""

    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}), label="Your password"
    )

    def __init__(self, user, *args, **kwargs) -> None:
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.")
        return password


class SavedSearchForm(forms.ModelForm):
    """A saved search's name and terms, as the Following page edits them and the API takes
    them (one validation for both).

    ``researcher`` takes a researcher's id or ORCID iD, ``institution`` an institution's id
    or ROR ID, ``collaboration`` a collaboration's id or name as written (the search page's
    links carry ids). Errors: an unknown category, researcher, institution or collaboration;
    years outside 1986-2100 (read in order when reversed); a search without words, category,
    researcher, institution or collaboration (it would announce every paper).
    """

    researcher = forms.CharField(
        required=False, max_length=80, help_text="A researcher's id on this site, or their ORCID iD."
    )
    institution = forms.CharField(
        required=False, max_length=80, help_text="An institution's id on this site, or its ROR ID."
    )
    collaboration = forms.CharField(
        required=False, max_length=300, help_text="A collaboration's id on this site, or its name as written."
    )

    class Meta:
        model = SavedSearch
        fields = ["name", "q", "category", "year_from", "year_to"]
        labels = {"q": "Words", "year_from": "From year", "year_to": "To year"}
        help_texts = {
            "q": "Matched as the keyword search matches them: “quoted phrases”, OR, -excluded.",
            "category": "An arXiv category or archive: hep-th, astro-ph.CO, math.",
        }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and not self.is_bound:
            self.initial["researcher"] = self.instance.researcher_id or ""
            self.initial["institution"] = self.instance.institution_id or ""
            self.initial["collaboration"] = self.instance.collaboration_id or ""
        for name in ("year_from", "year_to"):
            self.fields[name].widget.attrs.update(min=YEAR_MIN, max=YEAR_MAX)

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Give the search a name.")
        return name

    def clean_category(self) -> str:
        code = self.cleaned_data["category"].strip()
        if not code:
            return ""
        canonical = category_canonical(code)
        if canonical is None:
            raise forms.ValidationError(f"No arXiv category “{code}”.")
        return canonical

    def _year(self, name: str) -> int | None:
        year = self.cleaned_data.get(name)
        if year is not None and not YEAR_MIN <= year <= YEAR_MAX:
            raise forms.ValidationError(f"A year from {YEAR_MIN} to {YEAR_MAX}.")
        return year

    def clean_year_from(self) -> int | None:
        return self._year("year_from")

    def clean_year_to(self) -> int | None:
        return self._year("year_to")

    def clean_researcher(self) -> Researcher | None:
        raw = self.cleaned_data["researcher"].strip()
        if not raw:
            return None
        pk = None
        if raw.isascii() and raw.isdigit():
            pk = id_or_none(raw)
        else:
            with contextlib.suppress(InvalidOrcid):
                holders = Researcher.objects.filter(orcid=normalize_orcid(raw)).order_by("pk")
                pk = holders.values_list("pk", flat=True).first()
        # A record merged away answers for its survivor, by id or by iD alike.
        found = researcher_resolve(pk)[0] if pk is not None else None
        if found is None:
            raise forms.ValidationError("No researcher with that id or ORCID iD.")
        return found

    def clean_institution(self) -> Institution | None:
        raw = self.cleaned_data["institution"].strip()
        if not raw:
            return None
        found = None
        if raw.isascii() and raw.isdigit():
            found = Institution.objects.filter(pk=id_or_none(raw)).first()
        else:
            with contextlib.suppress(InvalidRorId):
                found = Institution.objects.filter(ror_id=normalize_ror_id(raw)).first()
        if found is None:
            raise forms.ValidationError("No institution with that id or ROR ID.")
        return found

    def clean_collaboration(self) -> Collaboration | None:
        raw = self.cleaned_data["collaboration"].strip()
        if not raw:
            return None
        if raw.isascii() and raw.isdigit():
            rows = Collaboration.objects.filter(pk=id_or_none(raw))
        else:
            rows = Collaboration.objects.filter(name__iexact=raw)
        found = rows.order_by("pk").first()
        if found is None:
            raise forms.ValidationError("No collaboration with that id or name.")
        return found

    def clean_q(self) -> str:
        q = " ".join(self.cleaned_data["q"].split())
        if q and query_is_empty(q):
            raise forms.ValidationError(
                f"“{q[:80]}” holds no word a search can match (only common words like “the”, or "
                "operators): add a word."
            )
        return q

    def clean(self) -> dict:
        data = super().clean()
        low, high = data.get("year_from"), data.get("year_to")
        if low and high and low > high:
            data["year_from"], data["year_to"] = high, low
        terms = ("q", "category", "researcher", "institution", "collaboration")
        if not self.errors and not any(data.get(key) for key in terms):
            raise forms.ValidationError(
                "Give some words, a category, a researcher, an institution or a collaboration: "
                "a search of everything would bring every new paper."
            )
        return data

    def save(self, commit: bool = True) -> SavedSearch:
        self.instance.researcher = self.cleaned_data.get("researcher")
        self.instance.institution = self.cleaned_data.get("institution")
        self.instance.collaboration = self.cleaned_data.get("collaboration")
        return super().save(commit=commit)
