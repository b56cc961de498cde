from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from . import device_views, login_pass, token_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("login/link/", login_pass.login_link_request, name="login_link_request"),
    path("login/link/<str:token>/", login_pass.login_link_open, name="login_link_open"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/form.html", extra_context={"title": "Change password"}
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/message.html",
            extra_context={"title": "Password changed", "message": "Your password has been changed."},
        ),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        views.PasswordResetView.as_view(
            template_name="accounts/form.html",
            email_template_name="registration/password_reset_email.txt",
            subject_template_name="registration/password_reset_subject.txt",
            extra_context={
                "title": "Reset password",
                "submit_label": "Send me a link",
                "intro": "Enter your account's email address and we will send you a link to set a new password.",
            },
        ),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/message.html",
            extra_context={
                "title": "Check your email",
                "message": "If an account has that address, we have sent it a link to set a new password.",
            },
        ),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_reset_confirm.html", extra_context={"title": "Choose a new password"}
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/message.html",
            extra_context={
                "title": "Password set",
                "message": "Your new password is set. You can log in now.",
                "link_url": reverse_lazy("login"),
                "link_text": "Log in",
            },
        ),
        name="password_reset_complete",
    ),
    path("profile/", views.profile, name="profile"),
    path("profile/away/", views.away_toggle, name="away_toggle"),
    path("profile/email/", views.email_change, name="email_change"),
    path("profile/email/confirm/<str:token>/", views.email_change_confirm, name="email_change_confirm"),
    path("profile/devices/", device_views.devices, name="devices"),
    path("profile/devices/retire/", device_views.device_retire_view, name="device_retire"),
    path("profile/api-keys/", token_views.api_key_create, name="api_key_create"),
    path("profile/api-keys/<int:token_id>/revoke/", token_views.api_key_revoke, name="api_key_revoke"),
    path("clubs/new/", views.club_new, name="club_new"),
    path("clubs/<int:club_id>/", views.club_detail, name="club_detail"),
    path("clubs/<int:club_id>/settings/", views.club_settings, name="club_settings"),
    path("clubs/<int:club_id>/members/", views.club_members, name="club_members"),
    path(
        "clubs/<int:club_id>/members/<int:membership_id>/promote/", views.membership_promote, name="membership_promote"
    ),
    path("clubs/<int:club_id>/members/<int:membership_id>/demote/", views.membership_demote, name="membership_demote"),
    path("clubs/<int:club_id>/members/<int:membership_id>/remove/", views.membership_remove, name="membership_remove"),
    path("clubs/<int:club_id>/invitations/", views.club_invitations, name="club_invitations"),
    path(
        "clubs/<int:club_id>/invitations/<int:invitation_id>/revoke/", views.invitation_revoke, name="invitation_revoke"
    ),
    path("invite/<str:token>/", views.invitation_accept, name="invitation_accept"),
]
