from django.apps import AppConfig
from django.db.models.signals import post_delete


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tournaments import replay_store, served  # noqa: F401  (served: its system check)
        from tournaments.models import Replay

        # Files outside the database go with their rows (matches deleted in any way).
        post_delete.connect(replay_store.forget_files, sender=Replay, dispatch_uid="replay-files")
