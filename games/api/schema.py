"""The OpenAPI 3.1 description of the JSON API, written by hand beside the views (games/api/views.py);
a test checks that every API route is described and every described path is routed."""

from __future__ import annotations

from typing import Any

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_NEXT = {"type": ["string", "null"], "format": "uri", "description": "The next (older) page, or null on the last page."}
_BEFORE = {
    "name": "before",
    "in": "query",
    "required": False,
    "schema": {"type": "integer", "minimum": 0},
    "description": "The keyset cursor from the previous page's `next` (the same keys the pages use).",
}


def _id(name: str, what: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "integer"}, "description": what}


def _ok(ref: str, description: str) -> dict[str, Any]:
    return {
        "200": {"description": description, "content": {"application/json": {"schema": {"$ref": ref}}}},
        "401": {"$ref": "#/components/responses/Unauthorized"},
        "404": {"$ref": "#/components/responses/NotFound"},
        "429": {"$ref": "#/components/responses/TooMany"},
    }


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or list(props)}


_INT = {"type": "integer"}
_STR = {"type": "string"}
_WHEN = {"type": ["string", "null"], "format": "date-time"}
_CLUB = _obj({"id": _INT, "name": _STR, "currency": _STR})

SCHEMAS: dict[str, Any] = {
    "Error": _ERROR,
    "Clubs": _obj(
        {
            "clubs": {
                "type": "array",
                "items": _obj({**_CLUB["properties"], "role": {"type": "string", "enum": ["member", "organiser"]}}),
            }
        }
    ),
    "Balances": _obj(
        {
            "club": _CLUB,
            "pots_cents": _INT,
            "balances": {
                "type": "array",
                "items": _obj(
                    {"member_id": _INT, "name": _STR, "balance_cents": _INT, "organiser": {"type": "boolean"}}
                ),
            },
        }
    ),
    "Statement": _obj(
        {
            "club": _CLUB,
            "member": _obj({"id": _INT, "name": _STR}),
            "balance_cents": _INT,
            "next": _NEXT,
            "lines": {
                "type": "array",
                "description": "Newest first.",
                "items": _obj(
                    {
                        "line": {"type": "integer", "description": "The line's number in the account (the keyset)."},
                        "date": _WHEN,
                        "kind": _STR,
                        "memo": _STR,
                        "amount_cents": _INT,
                        "balance_after_cents": _INT,
                        "entry": _INT,
                        "table": {"type": ["string", "null"]},
                        "game": {"type": ["string", "null"]},
                        "hand": {"type": ["integer", "null"]},
                        "reversed": {"type": "boolean"},
                    }
                ),
            },
        }
    ),
    "Tables": _obj(
        {
            "next": _NEXT,
            "tables": {
                "type": "array",
                "items": _obj(
                    {
                        "id": _INT,
                        "name": _STR,
                        "game": {"type": "string", "enum": ["piranha", "piles"]},
                        "status": _STR,
                        "hands_played": _INT,
                        "created_at": _WHEN,
                    }
                ),
            },
        }
    ),
    "Hands": _obj(
        {
            "table": _obj({"id": _INT, "name": _STR}),
            "next": _NEXT,
            "hands": {
                "type": "array",
                "items": _obj(
                    {
                        "id": _INT,
                        "number": _INT,
                        "started_at": _WHEN,
                        "finished_at": _WHEN,
                        "voided": {"type": "boolean"},
                        "url": {"type": "string", "format": "uri"},
                    }
                ),
            },
        }
    ),
    "Hand": _obj(
        {
            "id": _INT,
            "table": _obj({"id": _INT, "name": _STR}),
            "number": _INT,
            "game": _STR,
            "started_at": _WHEN,
            "finished_at": _WHEN,
            "voided": {"type": "boolean"},
            "commitment": {"type": "string", "description": "The shuffle commitment published at the deal."},
            "scheme": {"type": "string", "description": "How the deal is committed (engine/verify.py)."},
            "cuts": {
                "type": "array",
                "description": "The players' cuts the deal was dealt through, in the order "
                "received (scheme merkle-sha256-cut-v1; empty: dealt without a cut).",
                "items": _obj({"cut": _STR, "by": _STR, "at": _STR}),
            },
            "players": {"type": "array", "items": _obj({"seat": _INT, "name": _STR})},
            "your_seat": {"type": ["integer", "null"]},
            "view": {
                "type": "object",
                "description": "What you may see of the hand, as its page shows you: your "
                "own hole cards when you were dealt in, the board, the hands shown at a showdown, the result. "
                "Never another player's unshown cards, never the deck.",
            },
            "deal_events": {"type": "array", "items": {"type": "object"}},
            "actions": {"type": "array", "items": {"type": "object"}},
            "ledger": {"type": "array", "items": {"type": "object"}},
        }
    ),
}


def _paths() -> dict[str, Any]:
    """The API's paths: every one read-only, each answering with one schema of ``SCHEMAS``."""
    before = [_BEFORE]
    return {
        "/clubs": {
            "get": {
                "summary": "Your clubs",
                "operationId": "clubs",
                "responses": _ok("#/components/schemas/Clubs", "Your clubs."),
            }
        },
        "/clubs/{club_id}/balances": {
            "get": {
                "summary": "The club's balance sheet",
                "operationId": "balances",
                "parameters": [_id("club_id", "A club of yours.")],
                "responses": _ok("#/components/schemas/Balances", "Every member's balance."),
            }
        },
        "/clubs/{club_id}/statement": {
            "get": {
                "summary": "Your statement (organisers: any member's)",
                "operationId": "statement",
                "parameters": [
                    _id("club_id", "A club of yours."),
                    *before,
                    {
                        "name": "member",
                        "in": "query",
                        "required": False,
                        "schema": _INT,
                        "description": "Organisers only: another member's id.",
                    },
                ],
                "responses": {
                    **_ok("#/components/schemas/Statement", "Fifty lines a page, newest first."),
                    "403": {"$ref": "#/components/responses/Forbidden"},
                },
            }
        },
        "/clubs/{club_id}/tables": {
            "get": {
                "summary": "The club's tables",
                "operationId": "tables",
                "parameters": [_id("club_id", "A club of yours."), *before],
                "responses": _ok("#/components/schemas/Tables", "Newest first."),
            }
        },
        "/tables/{table_id}/hands": {
            "get": {
                "summary": "A table's finished hands",
                "operationId": "table_hands",
                "parameters": [_id("table_id", "A table of one of your clubs."), *before],
                "responses": {
                    **_ok("#/components/schemas/Hands", "Newest first, by hand number."),
                    "403": {"$ref": "#/components/responses/Forbidden"},
                },
            }
        },
        "/hands/{hand_id}": {
            "get": {
                "summary": "One finished hand",
                "operationId": "hand",
                "parameters": [_id("hand_id", "A hand of one of your clubs.")],
                "responses": {
                    **_ok("#/components/schemas/Hand", "The hand as its page tells it to you."),
                    "403": {"$ref": "#/components/responses/Forbidden"},
                    "409": {
                        "description": "The hand is still being played.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    },
                },
            }
        },
    }


def _components() -> dict[str, Any]:
    """The key scheme, the schemas and the error answers the paths refer to."""
    return {
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer", "description": "An API key from your profile page."}
        },
        "schemas": SCHEMAS,
        "responses": {
            name: {
                "description": text,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
            for name, text in (
                ("Unauthorized", "No key, or a wrong or revoked key."),
                ("NotFound", "Not one of your clubs, or no such record."),
                ("Forbidden", "Organisers only, or the house rules keep spectators out."),
                ("TooMany", "Too many requests; the Retry-After header says when to try again."),
            )
        },
    }


def openapi_schema(*, server: str) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Home club API",
            "version": "1",
            "description": "Read-only: a club's balances, your statement and the hand histories you may "
            "see. Amounts are integer cents in the club's currency. Make a key on your "
            "profile page; send it as `Authorization: Bearer <key>`. At most 60 requests "
            "a minute per key.",
        },
        "servers": [{"url": server}],
        "security": [{"bearer": []}],
        "paths": _paths(),
        "components": _components(),
    }
