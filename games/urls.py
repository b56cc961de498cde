from django.urls import URLPattern

app_name = "games"
urlpatterns: list[URLPattern] = []
