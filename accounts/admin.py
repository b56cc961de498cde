"""Admin for staff: look things up and fix data. Members and organisers use the site's own pages."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest

from .models import Club, Invitation, Membership, User


class MembershipInline(admin.TabularInline[Membership, Club]):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    readonly_fields = ["joined_at"]


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (
        *(DjangoUserAdmin.fieldsets or ()),
        ("Club site", {"fields": ("display_name", "time_zone")}),
    )
    add_fieldsets = (
        *DjangoUserAdmin.add_fieldsets,
        ("Club site", {"fields": ("display_name", "email", "time_zone")}),
    )
    list_display = ("username", "display_name", "email", "is_active", "is_staff", "last_login")
    search_fields = ("username", "display_name", "email")


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin[Club]):
    list_display = ("name", "currency", "credit_limit", "created_at")
    search_fields = ("name",)
    readonly_fields = ("created_at",)
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin[Membership]):
    list_display = ("user", "club", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("user__username", "user__display_name", "club__name")
    list_select_related = ("user", "club")
    autocomplete_fields = ["user", "club"]
    readonly_fields = ("joined_at",)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin[Invitation]):
    list_display = ("club", "email", "created_by", "created_at", "expires_at", "used_at", "revoked_at")
    list_filter = ("club",)
    search_fields = ("email", "club__name")
    list_select_related = ("club", "created_by")
    # The token is a credential: shown, never edited; use and revocation come from the site.
    readonly_fields = ("token", "created_at", "used_at", "used_by", "created_by")
    fields = ("club", "email", "token", "created_by", "created_at", "expires_at", "used_at", "used_by", "revoked_at")

    def has_add_permission(self, request: HttpRequest) -> bool:  # made on the club's invitations page
        return False
