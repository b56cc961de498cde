from django.apps import AppConfig


class ClubhouseConfig(AppConfig):
    name = "clubhouse"
    verbose_name = "Results, seasons and the night's summary"
