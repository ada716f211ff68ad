"""The three roles are groups: admin, planner, department viewer (see planner/roles.py)."""

from django.db import migrations

ROLE_GROUPS = ("admin", "planner", "department viewer")


def create_groups(apps, schema_editor):  # type: ignore[no-untyped-def]
    Group = apps.get_model("auth", "Group")
    for name in ROLE_GROUPS:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [("forecasts", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]
