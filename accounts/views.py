from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from . import selectors, services
from .access import club_access
from .forms import ClubForm
from .models import User


@login_required
def home(request: HttpRequest) -> HttpResponse:
    assert isinstance(request.user, User)
    return render(request, "accounts/home.html", {"memberships": selectors.club_list_for(user=request.user)})


@login_required
def club_new(request: HttpRequest) -> HttpResponse:
    assert isinstance(request.user, User)
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        club = services.club_create(
            name=form.cleaned_data["name"], currency=form.cleaned_data["currency"],
            credit_limit=form.credit_limit_cents, creator=request.user,
        )
        return redirect("club_detail", club_id=club.pk)
    return render(request, "accounts/form.html", {"form": form, "title": "New club"})


@login_required
def club_detail(request: HttpRequest, club_id: int) -> HttpResponse:
    access = club_access(request, club_id)
    return render(request, "accounts/club_detail.html", {
        "club": access.club, "access": access, "members": selectors.club_members(club=access.club),
    })


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    from django.contrib import messages

    from .forms import ProfileForm

    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Profile saved.")
        return redirect("profile")
    return render(request, "accounts/form.html", {"form": form, "title": "Your profile"})
