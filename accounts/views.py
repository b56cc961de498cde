"""Pages for members and clubs. Each checks permission (accounts.access), parses a form,
calls one service and redirects; a DomainError becomes a message or a 404/403/410 page.
POST-only club URLs check membership before the method, so a non-member gets 404 either way."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.money import units_from_cents
from kernel.errors import DomainError
from kernel.errors import PermissionDenied as NotAllowed

from . import selectors, services, throttle
from .access import club_access, membership_of
from .devices import device_list
from .forms import (
    INVITATION_VALIDITY_CHOICES,
    ClubForm,
    EmailChangeForm,
    InvitationForm,
    LoginForm,
    ProfileForm,
    ResetForm,
    SignupForm,
)
from .models import User

_MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _signed_in(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _message_page(
    request: HttpRequest, *, title: str, message: str, status: int = 200, link_url: str = "", link_text: str = ""
) -> HttpResponse:
    return render(
        request,
        "accounts/message.html",
        {
            "title": title,
            "message": message,
            "link_url": link_url,
            "link_text": link_text,
        },
        status=status,
    )


class LoginView(auth_views.LoginView):
    """Log in, throttled (accounts/throttle.py): a throttled try answers 429 with the reason."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm

    def form_valid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_valid(form)
        throttle.remember_device(response=response, user=form.get_user())
        return response

    def form_invalid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        username = str(form.data.get("username") or "")
        if not form.throttled and username and throttle.browser_spared(request=self.request, username=username):
            throttle.spared_browser_failed(request=self.request, username=username)  # its own failures count
        response = super().form_invalid(form)
        if form.throttled:
            response.status_code = 429
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset mail; one client may ask PASSWORD_RESET_REQUESTS_PER_CLIENT times an hour."""

    form_class = ResetForm

    def form_valid(self, form: ResetForm) -> HttpResponse:
        if not throttle.hit(
            kind="reset-client",
            value=throttle.client_address(self.request) or "",
            limit=settings.PASSWORD_RESET_REQUESTS_PER_CLIENT,
        ):
            form.add_error(None, "Too many password reset requests from your network. Try again in an hour.")
            response = self.form_invalid(form)
            response.status_code = 429
            return response
        return super().form_valid(form)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/home.html", {"memberships": selectors.club_list_for(user=_signed_in(request))})


@login_required
def club_new(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        club = services.club_create(
            name=form.cleaned_data["name"],
            currency=form.cleaned_data["currency"],
            credit_limit=form.credit_limit_cents,
            creator=_signed_in(request),
        )
        return redirect("club_detail", club_id=club.pk)
    return render(request, "accounts/form.html", {"form": form, "title": "New club"})


@login_required
def club_detail(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return render(
        request,
        "accounts/club_detail.html",
        {
            "club": access.club,
            "access": access,
            "members": selectors.club_members(club=access.club),
        },
    )


@login_required
def club_settings(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    club = access.club
    form = ClubForm(
        request.POST or None, instance=club, initial={"credit_limit_units": units_from_cents(club.credit_limit)}
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.club_update(
                club_id=club.pk,
                by=_signed_in(request),
                name=form.cleaned_data["name"],
                currency=form.cleaned_data["currency"],
                credit_limit=form.credit_limit_cents,
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, "Club settings saved.")
            return redirect("club_settings", club_id=club.pk)
    if form.errors:
        club.refresh_from_db()  # the form wrote its input onto the instance; show the stored name
    return render(request, "accounts/club_settings.html", {"club": club, "access": access, "form": form})


# --- members ---------------------------------------------------------------------------------------


@login_required
def club_members(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return render(
        request,
        "accounts/club_members.html",
        {
            "club": access.club,
            "access": access,
            "members": selectors.club_members(club=access.club),
        },
    )


def _membership_action(request: HttpRequest, club_id: int, membership_id: int, action: str) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    user = _signed_in(request)
    target = {
        "promote": services.membership_promote,
        "demote": services.membership_demote,
        "remove": services.membership_remove,
    }[action]
    try:
        target(club_id=access.club.pk, membership_id=membership_id, by=user)
    except services.NotFound as error:
        raise Http404(error.message) from None
    except DomainError as error:
        messages.error(request, error.message)
        return redirect("club_members", club_id=club_id)
    done = {"promote": "is now an organiser", "demote": "is now a member", "remove": "was removed from the club"}
    if action == "remove" and membership_id == access.membership.pk:
        messages.success(request, f"You left {access.club.name}.")
        return redirect("home")
    messages.success(request, f"Done: that person {done[action]}.")
    return redirect("club_members", club_id=club_id)


@login_required
def membership_promote(request: HttpRequest, club_id: int, membership_id: int) -> HttpResponse:
    return _membership_action(request, club_id, membership_id, "promote")


@login_required
def membership_demote(request: HttpRequest, club_id: int, membership_id: int) -> HttpResponse:
    return _membership_action(request, club_id, membership_id, "demote")


@login_required
def membership_remove(request: HttpRequest, club_id: int, membership_id: int) -> HttpResponse:
    return _membership_action(request, club_id, membership_id, "remove")


# --- invitations -----------------------------------------------------------------------------------


def _site_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/")


LAST_VALIDITY_KEY = "invitation_valid_for_days"


def _last_validity(request: HttpRequest) -> dict[str, str]:
    """The form's initial expiry: the one this session chose last, when it is still one of the choices."""
    last = request.session.get(LAST_VALIDITY_KEY)
    return {"valid_for_days": last} if last in dict(INVITATION_VALIDITY_CHOICES) else {}


@login_required
def club_invitations(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    # The expiry chosen last is offered again (this browser's session), so a second invitation keeps it.
    form = InvitationForm(request.POST or None, initial=_last_validity(request))
    if request.method == "POST" and form.is_valid():
        request.session[LAST_VALIDITY_KEY] = str(form.cleaned_data["valid_for_days"])
        try:
            invitation = services.invitation_create(
                club_id=access.club.pk,
                created_by=_signed_in(request),
                email=form.cleaned_data["email"],
                valid_for=timedelta(days=form.cleaned_data["valid_for_days"]),
                site_url=_site_url(request),
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            if invitation.mail_failed:
                messages.error(
                    request,
                    f"The invitation for {invitation.email} is saved, but the mail could not "
                    "be sent. Copy its link from the list below and send it yourself.",
                )
            elif invitation.email:
                messages.success(request, f"Invitation sent to {invitation.email}.")
            else:
                messages.success(request, "Invitation link created: copy it from the list below and share it.")
            return redirect("club_invitations", club_id=club_id)
    site_url = _site_url(request)
    pending = [
        (invitation, services.invitation_url(invitation=invitation, site_url=site_url))
        for invitation in selectors.invitation_list_pending(club=access.club)
    ]
    return render(
        request,
        "accounts/club_invitations.html",
        {
            "club": access.club,
            "access": access,
            "form": form,
            "pending": pending,
        },
    )


@login_required
def invitation_revoke(request: HttpRequest, club_id: int, invitation_id: int) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        services.invitation_revoke(club_id=access.club.pk, invitation_id=invitation_id, by=_signed_in(request))
    except services.NotFound as error:
        raise Http404(error.message) from None
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "Invitation revoked: its link no longer works.")
    return redirect("club_invitations", club_id=club_id)


def invitation_accept(request: HttpRequest, token: str) -> HttpResponse:
    """Open an invitation link: join (logged in), or create an account / log in first."""
    try:
        invitation = services.invitation_check(token=token)
    except DomainError as error:
        return _invitation_refused(request, error)
    club = invitation.club
    if request.user.is_authenticated:
        user = _signed_in(request)
        if membership_of(user=user, club_id=club.pk) is not None:
            return _message_page(
                request,
                title="You're already in",
                message=f"You are already a member of {club.name}.",
                link_url=reverse("club_detail", args=[club.pk]),
                link_text=f"Go to {club.name}",
            )
        if not services.invitation_fits(invitation=invitation, email=user.email):
            return _invitation_refused(request, services.InvitationForAnother(invitation))
        if request.method == "POST":
            try:
                services.invitation_accept(token=token, user=user)
            except DomainError as error:
                return _invitation_refused(request, error)
            messages.success(request, f"Welcome to {club.name}!")
            return redirect("club_detail", club_id=club.pk)
        return render(request, "accounts/invitation_join.html", {"invitation": invitation, "club": club})

    form = SignupForm(request.POST or None, invited_email=invitation.email)
    if request.method == "POST" and form.is_valid():
        try:
            membership = services.invitation_accept_new_account(
                token=token,
                username=form.cleaned_data["username"],
                display_name=form.cleaned_data.get("display_name", ""),
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                time_zone=form.cleaned_data["time_zone"],
            )
        except services.InvalidInput as error:
            form.add_error(None, error.message)
        except DomainError as error:
            return _invitation_refused(request, error)
        else:
            login(request, membership.user, backend=_MODEL_BACKEND)
            messages.success(request, f"Welcome to {club.name}! Your account is ready.")
            return redirect("club_detail", club_id=club.pk)
    login_url = f"{reverse('login')}?next={request.path}"
    return render(
        request,
        "accounts/invitation_signup.html",
        {
            "invitation": invitation,
            "club": club,
            "form": form,
            "login_url": login_url,
        },
    )


def _invitation_refused(request: HttpRequest, error: DomainError) -> HttpResponse:
    if isinstance(error, services.AlreadyMember):
        return _message_page(
            request,
            title="You're already in",
            message=error.message,
            link_url=reverse("club_detail", args=[error.club.pk]),
            link_text=f"Go to {error.club.name}",
        )
    if isinstance(error, services.NotFound):
        return _message_page(request, title="Invitation not found", message=error.message, status=404)
    if isinstance(error, services.InvitationGone):
        return _message_page(request, title="Invitation no longer valid", message=error.message, status=410)
    if isinstance(error, services.InvitationForAnother):
        return _message_page(request, title="Invitation for another address", message=error.message, status=403)
    if isinstance(error, NotAllowed):
        return _message_page(request, title="Not allowed", message=error.message, status=403)
    return _message_page(request, title="That didn't work", message=error.message, status=400)


# --- profile ---------------------------------------------------------------------------------------


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = _signed_in(request)
    was_away = user.away
    form = ProfileForm(request.POST or None, instance=user)
    if request.method == "POST" and form.is_valid():
        saved = form.save(commit=False)
        changed = {name: getattr(saved, name) for name in form.changed_data if name in ProfileForm.Meta.fields}
        moved = services.profile_update(user=user, changes=changed)
        messages.success(request, "Profile saved.")
        if user.away and not was_away:
            messages.info(
                request,
                "You are away: your turns take the default action at once"
                + (f" ({moved} table{'s' if moved != 1 else ''} moved on)." if moved else "."),
            )
        return redirect("profile")
    return render(
        request,
        "accounts/form.html",
        {
            "form": form,
            "title": "Your profile",
            "api_tokens": selectors.api_token_list(user=user),
            "devices": device_list(user=user),
            "intro": "Tables may wait hours between turns: set when your turn clock stands still, "
            "and how you hear that it is your turn.",
        },
    )


@login_required
def away_toggle(request: HttpRequest) -> HttpResponse:
    """Mark me away (my turns take the default action at once) or back; return to where I was."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    user = _signed_in(request)
    away = request.POST.get("away") == "1"
    services.member_away_set(user=user, away=away)
    if away:
        messages.success(request, "You are away: your turns take the default action at once.")
    else:
        messages.success(request, "Welcome back: your turn clock runs again.")
    target = request.POST.get("next") or reverse("profile")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("profile")
    return redirect(target)


@login_required
def email_change(request: HttpRequest) -> HttpResponse:
    """Ask to change my email address: with my password; a link mailed to the new address confirms."""
    user = _signed_in(request)
    form = EmailChangeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.email_change_request(
                user=user,
                password=form.cleaned_data["password"],
                new_email=form.cleaned_data["new_email"],
                site_url=_site_url(request),
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            return _message_page(
                request,
                title="Check your email",
                message=(
                    f"We sent a link to {form.cleaned_data['new_email']}. Your address changes when you open it; "
                    f"until then it stays {user.email or '(none)'}."
                ),
                link_url=reverse("profile"),
                link_text="Back to your profile",
            )
    return render(
        request,
        "accounts/form.html",
        {
            "form": form,
            "title": "Change your email address",
            "submit_label": "Send me a link",
            "intro": f"Your address now: {user.email or '(none)'}.",
        },
    )


def email_change_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link from the confirmation mail: a button (a mail scanner opening the link changes nothing)."""
    if request.method == "POST":
        try:
            user = services.email_change_confirm(token=token)
        except DomainError as error:
            return _message_page(request, title="That link didn't work", message=error.message, status=400)
        return _message_page(
            request,
            title="Email address changed",
            message=f"Your email address is now {user.email}.",
            link_url=reverse("profile"),
            link_text="Your profile",
        )
    return render(request, "accounts/email_change_confirm.html", {"title": "Confirm your new email address"})
