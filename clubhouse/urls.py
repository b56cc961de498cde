from django.urls import path

from . import views

app_name = "clubhouse"
urlpatterns = [
    path("clubs/<int:club_id>/results/", views.results, name="results"),
    path("clubs/<int:club_id>/results/members/<int:user_id>/", views.member_results, name="member_results"),
    path("clubs/<int:club_id>/seasons/", views.seasons, name="seasons"),
    path("clubs/<int:club_id>/seasons/<int:season_id>/", views.season_detail, name="season"),
    path("clubs/<int:club_id>/seasons/<int:season_id>/close/", views.season_close, name="season_close"),
    path("clubs/<int:club_id>/since/", views.summary, name="summary"),
    path("clubs/<int:club_id>/since/seen/", views.summary_seen, name="summary_seen"),
    path("clubs/<int:club_id>/how-to-play/<str:game>/", views.how_to_play, name="how_to_play"),
]
