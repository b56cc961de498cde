from django.urls import path

from . import views

app_name = "ledger"
urlpatterns = [
    path("clubs/<int:club_id>/ledger/", views.balance_sheet, name="balance_sheet"),
    path("clubs/<int:club_id>/ledger/statement/", views.my_statement, name="my_statement"),
    path("clubs/<int:club_id>/ledger/members/<int:user_id>/", views.statement, name="statement"),
    path(
        "clubs/<int:club_id>/ledger/members/<int:user_id>/export.csv", views.statement_export, name="statement_export"
    ),
    path("clubs/<int:club_id>/ledger/journal/", views.journal, name="journal"),
    path("clubs/<int:club_id>/ledger/journal/export.csv", views.journal_export, name="journal_export"),
    path("clubs/<int:club_id>/ledger/chart/", views.chart, name="chart"),
    path("clubs/<int:club_id>/ledger/settle/", views.settle, name="settle"),
    path("clubs/<int:club_id>/ledger/settle/limit/", views.settlement_limit, name="settlement_limit"),
    path(
        "clubs/<int:club_id>/ledger/settlements/<int:settlement_id>/confirm/",
        views.settlement_confirm,
        name="settlement_confirm",
    ),
    path(
        "clubs/<int:club_id>/ledger/settlements/<int:settlement_id>/decline/",
        views.settlement_decline,
        name="settlement_decline",
    ),
    path("clubs/<int:club_id>/ledger/rulings/", views.rulings, name="rulings"),
    path("clubs/<int:club_id>/ledger/rulings/adjust/", views.ruling_adjust, name="ruling_adjust"),
]
