# Catalog prices name their source and date (issue 16).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('planner', '0006_backgroundjob_heartbeat'),
    ]

    operations = [
        migrations.AddField(
            model_name='nodetype',
            name='price_source',
            field=models.TextField(blank=True, help_text='where price_usd comes from: vendor list, condo page, procurement record or estimate'),
        ),
        migrations.AddField(
            model_name='nodetype',
            name='price_date',
            field=models.CharField(blank=True, help_text='when that price held, e.g. 2013-09', max_length=20),
        ),
        migrations.AddField(
            model_name='storagesystem',
            name='price_source',
            field=models.TextField(blank=True, help_text='where price_usd comes from: vendor list, condo page, procurement record or estimate'),
        ),
        migrations.AddField(
            model_name='storagesystem',
            name='price_date',
            field=models.CharField(blank=True, help_text='when that price held, e.g. 2013-09', max_length=20),
        ),
    ]
