from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm, UsernameField
from django.utils import timezone

from accounts.money import units_from_cents
from kernel.text import validate_name

from . import throttle
from .models import Club, User
from .quiet import quiet_hours_error
from .selectors import name_clashes
from .zones import is_zone, zone_choices

INVITATION_VALIDITY_CHOICES = [("1", "1 day"), ("3", "3 days"), ("7", "7 days"), ("14", "14 days"), ("30", "30 days")]


class ClubForm(forms.ModelForm[Club]):
    """A club's name, currency and credit limit; used to create a club and to edit its settings."""

    credit_limit_units = forms.DecimalField(
        label="Credit limit",
        min_value=0,
        max_digits=12,
        decimal_places=2,
        initial=units_from_cents(Club._meta.get_field("credit_limit").get_default()),
        help_text="How far below zero a member may go and still sit down, in the club's currency.",
    )

    class Meta:
        model = Club
        fields = ["name", "currency"]

    def clean_name(self) -> str:
        from .services import club_name_error

        name = str(self.cleaned_data["name"]).strip()
        if not name:
            raise forms.ValidationError("Give the club a name.")
        validate_name(name)
        error = club_name_error(name)
        if error:
            raise forms.ValidationError(error)
        return name

    def clean_currency(self) -> str:
        currency = self.cleaned_data["currency"].strip().upper()
        if len(currency) != 3 or not currency.isalpha() or not currency.isascii():
            raise forms.ValidationError("Use a three-letter currency code such as USD, EUR or GBP.")
        return str(currency)

    @property
    def credit_limit_cents(self) -> int:
        return int(self.cleaned_data["credit_limit_units"] * 100)


class ProfileForm(forms.ModelForm[User]):
    """Name, time zone and the asynchronous-play settings: away, quiet hours, turn emails."""

    time_zone = forms.ChoiceField(choices=zone_choices, label="Time zone")  # read when the form is built

    class Meta:
        model = User
        # The email address changes on its own page: it needs the password and a confirmation mail.
        fields = ["display_name", "time_zone", "away", "quiet_start", "quiet_end", "turn_notices", "turn_reminder"]
        labels = {
            "away": "I am away",
            "quiet_start": "Quiet hours from",
            "quiet_end": "Quiet hours until",
            "turn_notices": "When it is my turn",
            "turn_reminder": "Remind me before my turn clock runs out",
        }
        help_texts = {
            "time_zone": "Times on this site are shown in this zone, and your quiet hours are in it.",
            "quiet_start": "Your turn clock does not run during your daily quiet hours (at most 12 hours, "
            "e.g. 23:00 until 07:00). Leave both empty for none.",
            "quiet_end": "",
        }
        widgets = {
            "quiet_start": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "quiet_end": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "turn_notices": forms.RadioSelect,
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["turn_notices"].required = False  # left out of a post: keep the member's choice

    def clean_display_name(self) -> str:
        """No control or format characters (kernel/text.py), and no name another member of one of the
        member's clubs is already shown under (compared case-insensitively)."""
        name = str(self.cleaned_data.get("display_name") or "").strip()
        validate_name(name)
        shown = name or self.instance.username
        unchanged = name == (self.instance.display_name or "")  # the instance still holds the saved name here
        clashes = [] if unchanged or not self.instance.pk else name_clashes(user=self.instance, name=shown)
        if clashes:
            raise forms.ValidationError(
                f"A member of {clashes[0].name} is already called “{shown}”: choose another display name.",
                code="name_taken",
            )
        return name

    def clean_turn_notices(self) -> str:
        return str(self.cleaned_data.get("turn_notices") or self.instance.turn_notices or User.TurnNotices.EACH)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        error = quiet_hours_error(data.get("quiet_start"), data.get("quiet_end"))
        if error:
            self.add_error("quiet_end", error)
        return data


class InvitationForm(forms.Form):
    email = forms.EmailField(
        required=False,
        label="Email address (optional)",
        help_text="We email the link there, and only an account with that address can use it. Leave it "
        "empty to get a link you can share yourself: that link works for anyone who has it.",
    )
    valid_for_days = forms.TypedChoiceField(
        label="Valid for",
        choices=INVITATION_VALIDITY_CHOICES,
        initial="7",
        coerce=int,
    )


class SignupForm(UserCreationForm[User]):
    """A new account from an invitation: username, display name, email (required) and password twice."""

    class Meta:
        model = User
        fields = ("username", "display_name", "email")
        field_classes = {"username": UsernameField}
        help_texts = {"display_name": "The name other members see; leave empty to use your username."}

    # Filled from the browser (static/js/time-zone.js); without it, or with a name not in the list,
    # the account takes the site's zone and the member can change it on their profile.
    time_zone = forms.CharField(
        required=False, max_length=64, widget=forms.HiddenInput(attrs={"data-browser-zone": ""})
    )

    def __init__(self, *args: Any, invited_email: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].required = True
        if invited_email:  # an invitation by email is for that address only
            self.fields["email"].initial = invited_email
            self.fields["email"].disabled = True
            self.fields["email"].help_text = "The invitation was sent to this address."

    def clean_display_name(self) -> str:
        name = str(self.cleaned_data.get("display_name") or "").strip()
        validate_name(name)
        return name

    def clean_time_zone(self) -> str:
        name = str(self.cleaned_data.get("time_zone") or "").strip()
        return name if is_zone(name) else settings.TIME_ZONE


class LoginForm(AuthenticationForm):
    """The log-in form, refusing before the password check while the address or the username is throttled."""

    throttled = False

    def clean(self) -> dict[str, Any]:
        assert self.request is not None
        refusal = throttle.login_refusal(
            request=self.request, username=str(self.cleaned_data.get("username") or ""), now=timezone.now()
        )
        if refusal:
            self.throttled = True
            raise forms.ValidationError(refusal, code="throttled")
        return super().clean()


class ResetForm(PasswordResetForm):
    """Password reset that mails one address at most PASSWORD_RESET_MAILS_PER_ADDRESS times an hour.

    Past that the form still answers as if it had sent (so it tells nothing about the address).
    """

    def send_mail(self, *args: Any, **kwargs: Any) -> None:
        email = str(self.cleaned_data.get("email") or "")
        if throttle.hit(kind="reset-address", value=email, limit=settings.PASSWORD_RESET_MAILS_PER_ADDRESS):
            super().send_mail(*args, **kwargs)


class EmailChangeForm(forms.Form):
    new_email = forms.EmailField(
        label="New email address", help_text="We mail a link there; the address changes when you open it."
    )
    password = forms.CharField(
        label="Your password", strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )
