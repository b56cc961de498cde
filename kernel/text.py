"""Text that members type and others see: names (display names, club, table and rule-set names) and chat.

One rule for all of it: no invisible control or format characters. Bidi overrides and isolates
(U+202A-U+202E, U+2066-U+2069) make a name read differently from what it is ("‮nnA" shows as "Ann"
reversed around what follows); zero-width characters make two names that look alike differ; control
characters and line separators break lines and mail headers. Refused: Unicode categories Cc (controls),
Cf (format), Cs (surrogates), Zl and Zp (line and paragraph separators). Chat keeps the zero-width
joiner and non-joiner, which some scripts and emoji sequences need.

``name_key`` is how two names are compared (unique display names in a club): NFKC, case-folded, with
runs of spaces made one.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
JOINERS = frozenset({"\u200c", "\u200d"})  # zero-width non-joiner and joiner


def unsafe_characters(text: str, *, allow_joiners: bool = False) -> list[str]:
    """The refused characters of ``text``, each as "U+202E", in order, once each."""
    found: list[str] = []
    for ch in str(text):
        if unicodedata.category(ch) in REFUSED_CATEGORIES and not (allow_joiners and ch in JOINERS):
            code = f"U+{ord(ch):04X}"
            if code not in found:
                found.append(code)
    return found


def text_problem(text: str, *, what: str = "A name", allow_joiners: bool = False) -> str | None:
    """Why ``text`` cannot be used (a sentence for the member's eyes), or None when it can."""
    found = unsafe_characters(text, allow_joiners=allow_joiners)
    if not found:
        return None
    listed = ", ".join(found[:3]) + ("..." if len(found) > 3 else "")
    return (
        f"{what} may hold letters, digits, spaces and punctuation only: no line breaks, tabs or other "
        f"control characters, and no invisible ones such as text-direction overrides; remove {listed}."
    )


def validate_name(value: str) -> None:
    """Form and model validator of every name members see; raises ValidationError (code "unsafe_characters")."""
    problem = text_problem(value)
    if problem:
        raise ValidationError(problem, code="unsafe_characters")


def name_key(name: str) -> str:
    """The form of a name two names are compared in: "ANN", "ann " and "Ａｎｎ" are one name."""
    return " ".join(unicodedata.normalize("NFKC", str(name)).casefold().split())
