from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_delete, post_save


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.models import User

        from tournaments import wake
        from tournaments.bots import lookalikes
        from tournaments.config import served  # noqa: F401  (served: its check)
        from tournaments.guard import addresses, lockout
        from tournaments.models import Bot, Replay
        from tournaments.play import dispatch, replay_store, schedule_builds, tasks, version_checks  # noqa: F401  (their tasks, by name)

        # The rooms below play wake the dispatcher by a signal (tournaments.wake).
        wake.work_changed.connect(dispatch.on_work_changed, dispatch_uid="dispatch")
        # A started tournament's schedule is built by a task (issue 42).
        wake.schedule_wanted.connect(schedule_builds.on_schedule_wanted, dispatch_uid="schedule")
        # Files outside the database go with their rows (matches deleted in any way).
        post_delete.connect(replay_store.forget_files, sender=Replay, dispatch_uid="replay-files")
        # The look of every new user and bot name, for the look-alike check (issue 31).
        post_save.connect(lookalikes.remember_user, sender=User, dispatch_uid="user-look")
        post_save.connect(lookalikes.remember_bot, sender=Bot, dispatch_uid="bot-look")
        # A sign-in forgets its own name's failures, not its address's (issue 42).
        user_logged_in.connect(lockout.forget_own_failures, dispatch_uid="own-failures")
        # Where accounts sign in from: one person's accounts share one person's share.
        user_logged_in.connect(addresses.on_signed_in, dispatch_uid="account-address")
