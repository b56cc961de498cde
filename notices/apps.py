from typing import Any

from django.apps import AppConfig


class NoticesConfig(AppConfig):
    name = "notices"
    verbose_name = "Notices"

    def ready(self) -> None:
        """The one way games reaches the notices (games/signals.py): a hand's alarm asks when the notices of
        its waiting seats are due, and tells when it rang so the notices due go out."""
        from games import signals
        from notices.reminders import notice_moments_after
        from notices.services.turns import turn_notices_sweep

        def moments(sender: Any, clocks: Any, now: Any, **kwargs: Any) -> list[Any]:
            return notice_moments_after(clocks=clocks, now=now)

        def rang(sender: Any, hand_id: int, now: Any, **kwargs: Any) -> int:
            return turn_notices_sweep(now=now, hand_ids=[hand_id])

        signals.hand_alarm_moments.connect(moments, dispatch_uid="notices.alarm.moments", weak=False)
        signals.hand_alarm_rang.connect(rang, dispatch_uid="notices.alarm.rang", weak=False)
