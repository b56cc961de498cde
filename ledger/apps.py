from django.apps import AppConfig
from django.db.models.signals import post_migrate


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger"

    def ready(self) -> None:
        from ledger.roles import grant_after_migrate

        # Once per migrate run (sender: this app), after every table exists.
        post_migrate.connect(grant_after_migrate, sender=self, dispatch_uid="ledger.grant_application_role")
