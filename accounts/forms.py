"""Forms of the account pages."""

from __future__ import annotations

from django import forms

from .models import DigestFrequency


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
