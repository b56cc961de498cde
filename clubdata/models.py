"""An organiser's club import, run as a job (clubdata/jobs.py): the upload as sent, kept in PostgreSQL until
the import worker has read it, and what came of it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ClubImport(models.Model):
    """One upload into an empty club: queued by the page, imported by a task on the imports queue within the
    site's time budget (CLUB_IMPORT_BUDGET_SECONDS), all or nothing. At most one unfinished per club."""

    class State(models.TextChoices):
        QUEUED = "queued", "Waiting for its turn"
        RUNNING = "running", "Importing"
        DONE = "done", "Imported"
        FAILED = "failed", "Not imported"

    club = models.ForeignKey("accounts.Club", on_delete=models.CASCADE, related_name="imports")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    size = models.BigIntegerField(help_text="The upload's bytes.")
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    rows = models.BigIntegerField(default=0, help_text="Records read, once it has finished.")
    message = models.TextField(blank=True, help_text="What came in, or why nothing did: for the organiser.")
    counts = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["club"],
                condition=models.Q(state__in=["queued", "running"]),
                name="club_import_one_unfinished",
            ),
        ]

    def __str__(self) -> str:
        return f"Import #{self.pk} into club #{self.club_id}: {self.state}"

    @property
    def finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)


class ClubImportPart(models.Model):
    """A piece of an upload (at most PART_BYTES), so the upload is streamed in and out, never held whole."""

    PART_BYTES = 1024 * 1024

    club_import = models.ForeignKey(ClubImport, on_delete=models.CASCADE, related_name="parts")
    number = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club_import", "number"], name="club_import_part_once")]

    def __str__(self) -> str:
        return f"Part {self.number} of import #{self.club_import_id}"
