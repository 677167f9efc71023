from pathlib import Path

from django.db import migrations, models


def fill_profiles(apps, schema_editor):
    """Rows recorded before the field existed get the profile their home is (by the agent's rules)."""
    from provider_schemas.homes import profile_name

    entries = apps.get_model("admin_panel", "AuditEntry")
    names: dict[str, str] = {}
    for home in entries.objects.values_list("home", flat=True).distinct():
        names[home] = profile_name(Path(home)) if home else ""
    for home, name in names.items():
        entries.objects.filter(home=home).update(profile=name)


class Migration(migrations.Migration):

    dependencies = [
        ("admin_panel", "0008_invitation_withdrawal"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditentry",
            name="profile",
            field=models.CharField(blank=True, db_index=True, max_length=64),
        ),
        migrations.RunPython(fill_profiles, migrations.RunPython.noop),
    ]
