# Shape rollups keyed by department/project instead of identity (bounded row count).
# The rows are derived data: the table is recreated empty; `rebuild_workload_rollups --missing`
# (run by the demo step) refills it from the jobs.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('forecasts', '0006_workload_storage'),
    ]

    operations = [
        migrations.DeleteModel(name='WorkloadShapeMonthly'),
        migrations.CreateModel(
            name='WorkloadShapeMonthly',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('month', models.DateField()),
                ('queue', models.CharField(blank=True, max_length=120)),
                ('dim', models.SmallIntegerField(help_text='1 size, 2 run time, 3 core-hours, 4 request, 5 ratio, 6 wait')),
                ('bucket', models.SmallIntegerField(help_text='bucket index (forecasts/workload.py); -1 = value unknown')),
                ('flag', models.SmallIntegerField(default=0, help_text='size: 1 = single node; request: 1 = ran under a day')),
                ('jobs', models.BigIntegerField(default=0)),
                ('core_hours', models.FloatField(default=0)),
                ('node_hours', models.FloatField(default=0)),
                ('wall_hours', models.FloatField(default=0)),
                ('wait_hours', models.FloatField(default=0)),
                ('req_hours', models.FloatField(default=0, help_text='requested wall hours of jobs that had a request')),
                ('max_core_hours', models.FloatField(default=0)),
                ('min_core_hours', models.FloatField(default=0)),
                ('max_wall_s', models.FloatField(default=0)),
                ('min_wall_s', models.FloatField(default=0)),
                ('cluster', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, to='forecasts.cluster')),
                ('department', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='forecasts.department')),
                ('project', models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='forecasts.project')),
            ],
            options={
                'indexes': [models.Index(fields=['dim', 'month', 'cluster'], name='workload_shape_dim_month')],
                'constraints': [models.UniqueConstraint(fields=('cluster', 'month', 'department', 'project', 'queue', 'dim', 'bucket', 'flag'), name='workload_shape_key', nulls_distinct=False)],
            },
        ),
    ]
