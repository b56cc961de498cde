"""The books in the Django admin: read only (PostgreSQL refuses edits of entries and postings anyway)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Account, ClubLedgerSettings, JournalEntry, Posting, Ruling, Settlement


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ("account", "amount", "seq", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "club", "kind", "user", "table", "balance", "last_seq")
    list_filter = ("kind", "club")
    search_fields = ("user__username", "user__display_name", "table__name")
    list_select_related = ("club", "user", "table")


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "club", "kind", "memo", "created_at", "created_by", "hand", "reverses", "ruling")
    list_filter = ("kind", "club")
    search_fields = ("memo",)
    list_select_related = ("club", "created_by", "hand__table", "reverses", "ruling__ruled_by")
    raw_id_fields = ("hand", "table", "reverses", "ruling", "settlement")
    inlines = [PostingInline]
    show_full_result_count = False


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("id", "entry", "account", "amount", "seq", "balance_after", "created_at")
    list_select_related = ("entry", "account__user", "account__table")
    raw_id_fields = ("entry", "account")
    show_full_result_count = False


@admin.register(Ruling)
class RulingAdmin(ReadOnlyAdmin):
    list_display = ("id", "club", "kind", "ruled_by", "created_at", "amount", "reason")
    list_filter = ("kind",)
    list_select_related = ("club", "ruled_by")


@admin.register(Settlement)
class SettlementAdmin(ReadOnlyAdmin):
    list_display = ("id", "club", "payer", "payee", "amount", "paid_on", "status", "recorded_by")
    list_filter = ("status",)
    list_select_related = ("club", "payer", "payee", "recorded_by")


@admin.register(ClubLedgerSettings)
class ClubLedgerSettingsAdmin(ReadOnlyAdmin):
    list_display = ("club", "settlement_max")
