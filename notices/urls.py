"""The notices' pages, at the paths they had under games (URL names ``notices:*``)."""

from django.urls import path

from notices import views

app_name = "notices"
urlpatterns = [
    path("account/notifications/", views.notifications, name="notifications"),
    path("account/push/subscribe/", views.push_subscribe_view, name="push_subscribe"),
    path("account/push/unsubscribe/", views.push_unsubscribe_view, name="push_unsubscribe"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("sw.js", views.service_worker, name="service_worker"),
]
