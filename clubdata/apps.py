from django.apps import AppConfig


class ClubdataConfig(AppConfig):
    name = "clubdata"
    verbose_name = "Club data"
