from django.urls import path

from . import views

app_name = "clubdata"

urlpatterns = [
    path("clubs/<int:club_id>/data/", views.club_data, name="club_data"),
    path("clubs/<int:club_id>/data/export.zip", views.club_data_export, name="club_data_export"),
    path("clubs/<int:club_id>/data/import/", views.club_data_import, name="club_data_import"),
    path("account/data/", views.my_data, name="my_data"),
    path("account/data/download.json", views.my_data_download, name="my_data_download"),
    path("account/delete/", views.account_delete, name="account_delete"),
]
