from django.urls import URLPattern

app_name = "ledger"
urlpatterns: list[URLPattern] = []
