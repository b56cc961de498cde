"""The repository stands alone: every document it cites is in it, and nothing points outside it.

A comment such as ``piles.txt 2.2(c)`` or ``docs/design.md "Engine contract"`` is a promise that the reader can
open that file here; a path on one developer's machine or beside the checkout is a promise nobody else can keep.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A cited document: a name (perhaps with folders) ending .md, .txt or .rst, not inside a longer word or path.
CITED = re.compile(r"(?<![\w/.-])((?:\.\.?/)*\w[\w./-]*\.(?:md|txt|rst))\b")
# Paths that can only name something outside this checkout.
OUTSIDE = re.compile(r"(?<![\w.])(?:\.\./\w|/(?:home|root|Users|work|srv)/\w)")
BINARY = {".png", ".ico", ".woff2", ".svg", ".webmanifest", ".gz", ".zip"}


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if Path(name).suffix not in BINARY and (ROOT / name).is_file()]


def cited_outside(text: str) -> list[str]:
    return OUTSIDE.findall(text)


def cited_missing(text: str, known: set[str]) -> list[str]:
    missing = []
    for cited in CITED.findall(text):
        inside = cited
        while inside.startswith(("./", "../")):
            inside = inside.split("/", 1)[1]
        if cited.startswith("../") or not any(name == inside or name.endswith("/" + inside) for name in known):
            missing.append(cited)
    return missing


def test_no_file_points_outside_the_repository() -> None:
    found = {}
    for path in tracked_text_files():
        if path.name == Path(__file__).name:
            continue
        hits = cited_outside(path.read_text(errors="replace"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}, f"paths outside the repository: {found}"


def test_every_cited_document_is_in_the_repository() -> None:
    files = tracked_text_files()
    known = {str(path.relative_to(ROOT)) for path in files}
    found = {}
    for path in files:
        if path.name == Path(__file__).name or path.is_relative_to(ROOT / "docs" / "rules"):
            continue
        missing = cited_missing(path.read_text(errors="replace"), known)
        if missing:
            found[str(path.relative_to(ROOT))] = sorted(set(missing))
    assert found == {}, f"documents cited but not in the repository: {found}"


def test_the_checks_catch_a_citation_from_outside() -> None:
    known = {"docs/design.md", "docs/rules/piles.txt"}
    assert cited_missing('see PLANNING.md "Engine contract" and piles.txt 2.2(c)', known) == ["PLANNING.md"]
    assert cited_missing("rules in `../notes/rules/piles.txt`", known) == ["../notes/rules/piles.txt"]
    assert cited_outside("Article numbers of `/srv/elsewhere/piranha.txt`") == ["/srv/e"]
    assert cited_outside("beside the checkout: `../notes/rules/`") == ["../n"]
    assert cited_outside("docs/design.md and static/js/cut.js") == []
