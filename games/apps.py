from typing import Any

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games and tables"

    def ready(self) -> None:
        """Open sockets re-check access only when it may have changed (games/live/access.py): a logout, any
        change of the member's account (password included), a membership made, changed or ended."""
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Membership, User
        from games.live.access import access_bump

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
        post_save.connect(
            membership_changed, sender=Membership, dispatch_uid="games.access.membership_save", weak=False
        )
        post_delete.connect(
            membership_changed, sender=Membership, dispatch_uid="games.access.membership_delete", weak=False
        )
        user_logged_out.connect(logged_out, dispatch_uid="games.access.logout", weak=False)
        self._connect_member_signals()
        self._connect_ledger_signals()
        self._connect_live_publishers()

    @staticmethod
    def _connect_ledger_signals() -> None:
        """The ledger's Rulings page shows the games' "void a hand" form (ledger/signals.py)."""
        from games.forms import VoidHandForm
        from ledger.signals import rulings_page_forms

        def void_form(sender: Any, club: Any, **kwargs: Any) -> dict[str, Any]:
            return {"void_form": VoidHandForm(club=club)}

        rulings_page_forms.connect(void_form, dispatch_uid="games.rulings.void_form", weak=False)

    @staticmethod
    def _connect_member_signals() -> None:
        """What accounts announces (accounts/signals.py) moves the member's hands on."""
        from accounts import signals
        from games.services.clocks import hands_reclock
        from games.services.members import hands_apply_away, hands_member_removed
        from games.timing.turn_clock import Member

        def clock_changed(
            sender: Any, user: Any, time_zone: str, quiet_start: Any, quiet_end: Any, **kwargs: Any
        ) -> int:
            return hands_reclock(
                user=user, before=Member(time_zone=time_zone, quiet_start=quiet_start, quiet_end=quiet_end)
            )

        def went_away(sender: Any, user: Any, **kwargs: Any) -> int:
            return hands_apply_away(user=user)

        def membership_ended(sender: Any, user: Any, club_id: int, **kwargs: Any) -> int:
            return hands_member_removed(user=user, club_id=club_id)

        signals.member_clock_changed.connect(clock_changed, dispatch_uid="games.hands.reclock", weak=False)
        signals.member_went_away.connect(went_away, dispatch_uid="games.hands.away", weak=False)
        signals.membership_ended.connect(membership_ended, dispatch_uid="games.hands.member_removed", weak=False)

    @staticmethod
    def _connect_live_publishers() -> None:
        """What the services announce after a commit (games/signals.py), the live wing publishes
        (games/live/publish.py, read at each call)."""
        from games import signals
        from games.live import publish

        def versions(sender: Any, touched: Any, club_id: int, known: Any = None, **kwargs: Any) -> None:
            publish.versions_publish(touched, club_id, known)

        def table_changed(sender: Any, table_id: int, club_id: int, **kwargs: Any) -> None:
            publish.table_changed_publish(table_id, club_id)

        def lobby_changed(sender: Any, club_id: int, **kwargs: Any) -> None:
            publish.lobby_announce(club_id)

        def chat_said(sender: Any, table_id: int, message: dict[str, Any], **kwargs: Any) -> None:
            # The line is stored; pages show it on their next load if this send is lost.
            publish.groups_send([(publish.table_group(table_id), message)], about=f"chat at table {table_id}")

        signals.versions_committed.connect(versions, dispatch_uid="games.live.versions", weak=False)
        signals.table_changed.connect(table_changed, dispatch_uid="games.live.table_changed", weak=False)
        signals.lobby_changed.connect(lobby_changed, dispatch_uid="games.live.lobby_changed", weak=False)
        signals.chat_said.connect(chat_said, dispatch_uid="games.live.chat_said", weak=False)
