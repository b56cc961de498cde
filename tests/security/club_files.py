"""Club export files for the import's security tests: a genuine one, rewritten line by line, and an upload
through a real site (multipart, as a browser sends it)."""

from __future__ import annotations

import http.client
import io
import json
import re
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from accounts.models import Club
from clubdata.archive import club_export

from .site import Browser

Row = dict[str, Any]


def export_of(club: Club) -> bytes:
    out = io.BytesIO()
    club_export(club=club, out=out, reason="Moving to a new host")
    return out.getvalue()


def rows_of(data: bytes, name: str) -> list[Row]:
    text = zipfile.ZipFile(io.BytesIO(data)).read(name).decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def rewritten(data: bytes, changes: dict[str, Callable[[list[Row]], list[Row]] | bytes]) -> bytes:
    """The zip with some files changed: a function of a JSON-lines file's rows, or the file's new bytes."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in source.namelist():
            change = changes.get(name)
            content = source.read(name)
            if isinstance(change, bytes):
                content = change
            elif change is not None:
                content = "".join(json.dumps(r) + "\n" for r in change(rows_of(data, name))).encode()
            archive.writestr(name, content)
        for name, change in changes.items():
            if name not in source.namelist() and isinstance(change, bytes):
                archive.writestr(name, change)
    return out.getvalue()


def without(data: bytes, name: str) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for other in source.namelist():
            if other != name:
                archive.writestr(other, source.read(other))
    return out.getvalue()


def log_in(site_port: int, username: str, password: str) -> Browser:
    browser = Browser(site_port)
    assert browser.post_form("/login/", {"username": username, "password": password}) == 302
    return browser


def upload(browser: Browser, club_id: int, data: bytes, *, timeout: float = 120) -> tuple[int, str, str]:
    """POST ``data`` as the club data page's file field; returns (status, Location, page)."""
    page = f"/clubs/{club_id}/data/"
    status, _, html = browser.request("GET", page)
    assert status == 200, (status, html[:300])
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n{token.group(1)}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="club.zip"\r\n'
            f"Content-Type: application/zip\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    conn = http.client.HTTPConnection("127.0.0.1", browser.port, timeout=timeout)
    conn.request(
        "POST",
        f"/clubs/{club_id}/data/import/",
        body=body,
        headers={
            "Host": f"127.0.0.1:{browser.port}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items()),
            "Referer": f"http://127.0.0.1:{browser.port}{page}",
        },
    )
    response = conn.getresponse()
    return response.status, response.getheader("Location") or "", response.read().decode(errors="replace")
