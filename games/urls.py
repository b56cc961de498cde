from django.urls import path

from . import advance_views, replay_views, views
from .api import views as api_views
from .chat import views as chat_views
from .clubdata import views as data_views

app_name = "games"
urlpatterns = [
    path("clubs/<int:club_id>/rules/", views.rule_set_list, name="rule_sets"),
    path("clubs/<int:club_id>/rules/new/<str:game>/", views.rule_set_new, name="rule_set_new"),
    path("clubs/<int:club_id>/rules/<int:rule_set_id>/", views.rule_set_detail, name="rule_set_detail"),
    path("clubs/<int:club_id>/rules/<int:rule_set_id>/edit/", views.rule_set_edit, name="rule_set_edit"),
    path("clubs/<int:club_id>/rules/versions/<int:version_id>/", views.rule_version_detail, name="rule_version"),
    path("clubs/<int:club_id>/tables/", views.lobby, name="lobby"),
    path("clubs/<int:club_id>/tables/new/", views.table_new, name="table_new"),
    path("tables/<int:table_id>/", views.table_detail, name="table"),
    path("tables/<int:table_id>/sit/", views.seat_take, name="seat_take"),
    path("tables/<int:table_id>/sit-out/", views.seat_sit_out, name="seat_sit_out"),
    path("tables/<int:table_id>/sit-in/", views.seat_sit_in, name="seat_sit_in"),
    path("tables/<int:table_id>/leave/", views.seat_leave, name="seat_leave"),
    path("tables/<int:table_id>/start/", views.table_start, name="table_start"),
    path("tables/<int:table_id>/new-game/", views.table_new_game, name="table_new_game"),
    path("tables/<int:table_id>/close/", views.table_close, name="table_close"),
    path("tables/<int:table_id>/act/", views.hand_act, name="hand_act"),
    path("tables/<int:table_id>/advance/", advance_views.advance_set, name="advance_set"),
    path("tables/<int:table_id>/advance/withdraw/", advance_views.advance_cancel, name="advance_cancel"),
    path("tables/<int:table_id>/hands/", views.hand_history, name="hand_history"),
    path("hands/<int:hand_id>/", views.hand_detail, name="hand_detail"),
    path("hands/<int:hand_id>/proof.json", views.hand_proof_json, name="hand_proof_json"),
    path("hands/<int:hand_id>/open/", views.hand_dispute, name="hand_dispute"),
    path("hands/<int:hand_id>/replay/", replay_views.hand_replay_page, name="hand_replay"),
    path("hands/<int:hand_id>/replay.json", replay_views.hand_replay_json, name="hand_replay_json"),
    path("cards/colours/", views.deck_colours, name="deck_colours"),
    path("tables/<int:table_id>/chat/", chat_views.chat_send, name="chat_send"),
    path("chat/<int:message_id>/hide/", chat_views.chat_hide_view, name="chat_hide"),
    path("clubs/<int:club_id>/data/", data_views.club_data, name="club_data"),
    path("clubs/<int:club_id>/data/export.zip", data_views.club_data_export, name="club_data_export"),
    path("clubs/<int:club_id>/data/import/", data_views.club_data_import, name="club_data_import"),
    path("account/data/", data_views.my_data, name="my_data"),
    path("account/data/download.json", data_views.my_data_download, name="my_data_download"),
    path("account/delete/", data_views.account_delete, name="account_delete"),
    path("api/v1/openapi.json", api_views.schema, name="api_schema"),
    path("api/v1/clubs", api_views.clubs, name="api_clubs"),
    path("api/v1/clubs/<int:club_id>/balances", api_views.balances, name="api_balances"),
    path("api/v1/clubs/<int:club_id>/statement", api_views.statement, name="api_statement"),
    path("api/v1/clubs/<int:club_id>/tables", api_views.tables, name="api_tables"),
    path("api/v1/tables/<int:table_id>/hands", api_views.table_hands, name="api_table_hands"),
    path("api/v1/hands/<int:hand_id>", api_views.hand, name="api_hand"),
]
