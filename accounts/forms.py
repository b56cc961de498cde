from django import forms

from .models import Club


class ClubForm(forms.ModelForm[Club]):
    credit_limit_units = forms.DecimalField(
        label="Credit limit", min_value=0, max_digits=12, decimal_places=2, initial=100,
        help_text="How far below zero a member may go and still sit down, in the club's currency.",
    )

    class Meta:
        model = Club
        fields = ["name", "currency"]

    def clean_currency(self) -> str:
        currency = self.cleaned_data["currency"].strip().upper()
        if len(currency) != 3 or not currency.isalpha():
            raise forms.ValidationError("Use a three-letter currency code such as USD, EUR or GBP.")
        return str(currency)

    @property
    def credit_limit_cents(self) -> int:
        return int(self.cleaned_data["credit_limit_units"] * 100)


class ProfileForm(forms.ModelForm):
    class Meta:
        from .models import User

        model = User
        fields = ["display_name", "email", "time_zone"]
        help_texts = {"time_zone": "Times on this site are shown in this zone."}
