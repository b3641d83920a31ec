"""The claim form: what a user tells the editors when ORCID sign-in does not prove a claim."""

from __future__ import annotations

from django import forms


class ClaimForm(forms.Form):
    """``evidence`` (free text: a homepage, an institutional address, a paper's
    acknowledgements) and ``orcid`` (an iD typed in: evidence for the editors, never proof;
    validated by the claim service). Both optional here: a claim proved by ORCID sign-in
    needs neither, and the service says when an unproved one lacks both."""

    evidence = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 4}),
        label="Why this profile is yours",
        help_text="A homepage, an institutional page or address, anything an editor can check.",
    )
    orcid = forms.CharField(
        required=False,
        max_length=60,
        label="Your ORCID iD (optional)",
        help_text="Typed here, an iD is a hint for the editors; sign in with ORCID to prove it.",
    )


class ProposalForm(forms.Form):
    """``evidence`` for a merge proposal (optional free text for the editors)."""

    evidence = forms.CharField(
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Why it is you (optional)",
        help_text="A paper you share, a co-author, an address: anything an editor can check.",
    )


class NameForm(forms.Form):
    """A name the owner of a claimed profile adds or makes the display name (issue 31). The
    rules (letters, length, no control characters, not a duplicate) are the service's,
    :func:`curation.names.name_clean`; the form bounds what is read and keeps what was typed."""

    name = forms.CharField(
        max_length=1000,
        strip=False,
        label="A name you publish under",
        help_text="As you write it: accents, other scripts and initials are welcome.",
    )
