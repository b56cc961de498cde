"""Pages of a club's data (organisers: export and import) and of a member's own data (download,
account deletion)."""

from __future__ import annotations

import json
import tempfile

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.access import club_access
from accounts.models import User
from games.selectors.hands import club_exports_recent

from . import archive, importing, jobs, leaving, member


def _me(request: HttpRequest) -> User:
    assert isinstance(request.user, User)
    return request.user


def _club_data_page(
    request: HttpRequest, club_id: int, *, error: str = "", status: int = 200, reason: str = ""
) -> HttpResponse:
    access = club_access(request, club_id, organiser=True)
    job = jobs.club_import_latest(club=access.club)
    return render(
        request,
        "clubdata/club_data.html",
        {
            "club": access.club,
            "access": access,
            "title": f"Club data · {access.club.name}",
            "export_refusal": archive.club_export_refusal(club=access.club),
            "import_refusal": archive.club_is_empty(club=access.club),
            "error": error,
            "format_version": archive.FORMAT_VERSION,
            "reason": reason,
            "reason_max": archive.REASON_MAX,
            "exports": club_exports_recent(club=access.club),
            "job": job,
            "budget_minutes": f"{settings.CLUB_IMPORT_BUDGET_SECONDS / 60:g}",
            "job_rows": jobs.club_import_progress(job=job) if job and job.state == job.State.RUNNING else None,
        },
        status=status,
    )


@login_required
@require_GET
def club_data(request: HttpRequest, club_id: int) -> HttpResponse:
    return _club_data_page(request, club_id)


@login_required
@require_POST
def club_data_export(request: HttpRequest, club_id: int) -> HttpResponseBase:
    """The zip, made only with a reason: the export is recorded and the members read it on each hand's page."""
    access = club_access(request, club_id, organiser=True)
    reason = request.POST.get("reason", "")
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it
    try:
        archive.club_export(club=access.club, out=spool, by=_me(request), reason=reason)
    except archive.ArchiveError as exc:
        spool.close()
        status = 400 if not archive.club_export_refusal(club=access.club) else 409
        return _club_data_page(request, club_id, error=str(exc), status=status, reason=reason[: archive.REASON_MAX])
    spool.seek(0)
    stamp = timezone.localdate().isoformat()
    response = FileResponse(
        spool, as_attachment=True, filename=f"club-{access.club.pk}-{stamp}.zip", content_type="application/zip"
    )
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def club_data_import(request: HttpRequest, club_id: int) -> HttpResponse:
    """Store the upload and queue its import (clubdata/jobs.py); the page shows its progress and result. What
    is quick to refuse (not a zip, ZIP64, not a club export, a club that is not empty) is refused here."""
    access = club_access(request, club_id, organiser=True)
    most = importing.UPLOAD_LIMITS.upload_bytes
    too_large = f"That file is larger than {most // importing.MB} MB, more than this site imports."
    if int(request.META.get("CONTENT_LENGTH") or 0) > most:  # refused before the body is read
        return _club_data_page(request, club_id, error=too_large, status=413)
    upload = request.FILES.get("file")
    if upload is None:
        return _club_data_page(request, club_id, error="Choose the zip file of a club export.", status=400)
    if upload.size and upload.size > most:
        return _club_data_page(request, club_id, error=too_large, status=413)
    try:
        importing.upload_check(source=upload)
        jobs.club_import_queue(
            club=access.club, by=_me(request), source=upload, site_url=request.build_absolute_uri("/")
        )
    except jobs.ImportUnderWay as exc:
        return _club_data_page(request, club_id, error=str(exc), status=409)
    except archive.ArchiveError as exc:
        return _club_data_page(request, club_id, error=str(exc), status=400)
    messages.info(request, "The file is uploaded and its import has begun: this page shows how it goes.")
    return redirect("clubdata:club_data", club_id=access.club.pk)


@login_required
@require_GET
def my_data(request: HttpRequest) -> HttpResponse:
    me = _me(request)
    return render(
        request,
        "clubdata/my_data.html",
        {
            "title": "Your data",
            "refusal": leaving.account_delete_refusal(user=me),
            "stays": [line.format(id=me.pk) for line in leaving.WHAT_STAYS],
            "goes": leaving.WHAT_GOES,
            "former_name": f"Former member #{me.pk}",
        },
    )


@login_required
@require_GET
def my_data_download(request: HttpRequest) -> HttpResponse:
    me = _me(request)
    body = json.dumps(member.member_data(user=me), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="my-data-{timezone.localdate().isoformat()}.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request: HttpRequest) -> HttpResponse:
    me = _me(request)
    context = {
        "title": "Delete your account",
        "refusal": leaving.account_delete_refusal(user=me),
        "stays": [line.format(id=me.pk) for line in leaving.WHAT_STAYS],
        "goes": leaving.WHAT_GOES,
        "former_name": f"Former member #{me.pk}",
        "error": "",
    }
    if request.method == "POST":
        if request.POST.get("confirm") != "on":
            context["error"] = "Tick the box to confirm that you want to delete your account."
            return render(request, "clubdata/account_delete.html", context, status=400)
        try:
            leaving.account_delete(user=me, password=request.POST.get("password", ""))
        except leaving.AccountDeleteRefused as exc:
            context["error"] = str(exc)
            return render(request, "clubdata/account_delete.html", context, status=400)
        logout(request)
        return render(
            request,
            "accounts/message.html",
            {
                "title": "Your account is deleted",
                "message": f"Your personal details are erased and you are logged out. In the clubs' books and hand "
                f"histories you are now {context['former_name']}; those lines stay so the books still "
                f"balance.",
            },
        )
    return render(request, "clubdata/account_delete.html", context)
