from typing import Any

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games and tables"

    def ready(self) -> None:
        """Open sockets re-check access only when it may have changed (games/live.py): a logout, any
        change of the member's account (password included), a membership made, changed or ended."""
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Membership, User
        from games.live import access_bump

        def account_changed(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
            if update_fields is not None and set(update_fields) <= {"last_login", "away"}:
                return  # a login elsewhere or the away switch changes no one's access
            access_bump(instance.pk)

        def membership_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
            access_bump(instance.user_id)

        def logged_out(sender: Any, user: Any = None, **kwargs: Any) -> None:
            if user is not None:
                access_bump(user.pk)

        post_save.connect(account_changed, sender=User, dispatch_uid="games.access.user", weak=False)
        post_save.connect(membership_changed, sender=Membership, dispatch_uid="games.access.membership_save",
                          weak=False)
        post_delete.connect(membership_changed, sender=Membership, dispatch_uid="games.access.membership_delete",
                            weak=False)
        user_logged_out.connect(logged_out, dispatch_uid="games.access.logout", weak=False)
