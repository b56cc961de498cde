"""The notice models, moved from games without touching the data: games made their tables (0004 and 0009,
the practice guard on games_turnnotice in 0012) and games 0014 drops them from its state; here they enter
the notices app's state over the same tables (``db_table`` unchanged). No table, column, constraint or row
changes. Their content types are renamed to this app, so nothing that names them is left stale."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("turnnotice", "pushsubscription", "pushchoice")


def content_types_to(app_label: str, other: str):
    def move(apps, schema_editor):
        rows = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
        for model in MODELS:
            if not rows.filter(app_label=app_label, model=model).exists():
                rows.filter(app_label=other, model=model).update(app_label=app_label)

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0006_user_time_zone_without_choices"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0015_notice_models_moved"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PushChoice",
                    fields=[
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="push_choice",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        ("turn", models.BooleanField(default=True, verbose_name="Your turn")),
                        ("reminder", models.BooleanField(default=True, verbose_name="Your clock runs out soon")),
                        ("digest", models.BooleanField(default=False, verbose_name="The daily digest")),
                    ],
                    options={"db_table": "games_pushchoice"},
                ),
                migrations.CreateModel(
                    name="PushSubscription",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("endpoint", models.CharField(max_length=1000, unique=True)),
                        (
                            "p256dh",
                            models.CharField(help_text="The browser's P-256 public key, base64url.", max_length=100),
                        ),
                        (
                            "auth",
                            models.CharField(help_text="The browser's authentication secret, base64url.", max_length=40),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="push_subscriptions",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"db_table": "games_pushsubscription"},
                ),
                migrations.CreateModel(
                    name="TurnNotice",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("seat", models.PositiveSmallIntegerField()),
                        ("since", models.PositiveIntegerField(help_text="The hand version at which that turn began.")),
                        (
                            "kind",
                            models.CharField(
                                choices=[("turn", "Your turn"), ("reminder", "Clock running out")], max_length=10
                            ),
                        ),
                        ("sent_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "hand",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="games.hand"
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_turnnotice",
                        "constraints": [
                            models.UniqueConstraint(fields=("hand", "seat", "since", "kind"), name="turn_notice_once")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_to("notices", "games"), content_types_to("games", "notices")),
    ]
