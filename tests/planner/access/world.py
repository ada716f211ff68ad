"""A small site with one row of every kind, for trying every route as every role.

Two departments: A (ggs, the viewer's) and B (scb).  Everything B owns carries the string
``PLANTED`` (its users, accounts, projects, storage owner), so a response that shows any of
B's rows to A's viewer is caught by a substring check.  ``build_world`` returns the personas
and the ``RouteSamples`` for A's and B's objects (tests/routes.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from tests.routes import RouteSamples

PLANTED = "zqxplantedb"
ROOT = Path(__file__).resolve().parents[3]


@dataclass
class World:
    users: dict[str, Any]  # role name -> user
    samples_a: RouteSamples
    samples_b: RouteSamples
    departments: dict[str, Any]


def _user(username: str, group: str | None, *, superuser: bool = False) -> Any:
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username=username, password="pw-" + username, is_superuser=superuser,
                                    is_staff=superuser)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _usage(tmp: Path, departments: dict[str, Any]) -> Any:
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import IdentityMapping, Project
    from tests.forecasts.chargeback_data import ingest_lines, sacct_line

    lines = [
        sacct_line(1, user="gina", account="autism-wgs", group="ggs", cores=4, cluster="minerva"),
        sacct_line(2, user="gina", account="autism-wgs", group="ggs", cores=8, cluster="minerva",
                   start="2024-02-01T08:00:00", end="2024-02-01T12:00:00"),
        sacct_line(3, user=f"{PLANTED}-user", account=f"{PLANTED}-acct", group="scb", cores=16, cluster="minerva"),
        sacct_line(4, user=f"{PLANTED}-user", account=f"{PLANTED}-acct", group="scb", cores=2, cluster="minerva",
                   start="2024-02-01T08:00:00", end="2024-02-01T18:00:00"),
    ]
    run = ingest_lines(lines, tmp, cluster="minerva")
    for account, dept in (("autism-wgs", departments["genomics"]), (f"{PLANTED}-acct", departments["chemistry"])):
        project = Project.objects.create(name=f"{account}-project", department=dept, pi=f"Dr {account}")
        IdentityMapping.objects.create(kind="account", name=account, department=dept, project=project,
                                       valid_from="1970-01-01")
    IdentityMapping.objects.create(kind="group", name="ggs", department=departments["genomics"])
    IdentityMapping.objects.create(kind="group", name="scb", department=departments["chemistry"])
    usage_reattribute()
    return run


def _storage(tmp: Path) -> Any:
    from forecasts.storage.services import ingest_scan

    path = tmp / "scan.tsv"
    path.write_text("1000\tgina\tggs\t1700000000\tf\t/a/x\n"
                    f"2000\t{PLANTED}-user\tscb\t1700000000\tf\t/a/y\n"
                    "bad\tgina\tggs\t1700000000\tf\t/a/z\n")
    return ingest_scan(filesystem="proj", fmt="tsv", path=path, taken_on=date(2024, 3, 1))


def build_world(tmp: Path) -> World:
    from forecasts.chargeback.services import statements_compute
    from forecasts.demand.external import external_series_create
    from forecasts.demand.plans import plan_import_file
    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster, ClusterCapacity, Department, Institution, Statement
    from planner.access.services import token_create
    from planner.jobs.models import BackgroundJob
    from planner.models import Benchmark, OptimizerRun, StorageSystem
    from planner.reports.services import report_create, report_generate
    from tests.forecasts.chargeback_data import minerva_plan
    from tests.forecasts.forecast_factories import usage_history
    from tests.planner.designs_data import load_catalog_and_designs

    Institution.objects.get_or_create(pk=1, defaults={"name": "Test Institute of Genomics"})
    departments = {
        "genomics": Department.objects.get_or_create(code="ggs", name="Genetics and Genomic Sciences")[0],
        "chemistry": Department.objects.get_or_create(code="scb", name="Structural and Chemical Biology")[0],
    }
    users = {
        "admin": _user("root-admin", "admin", superuser=True),
        "planner": _user("pat-planner", "planner"),
        "finance": _user("fin-finance", "finance"),
        "viewer": _user("gina-genomics", "department viewer"),
        "viewer_b": _user("chris-chemistry", "department viewer"),
    }
    departments["genomics"].viewers.add(users["viewer"])
    departments["chemistry"].viewers.add(users["viewer_b"])

    designs = load_catalog_and_designs(with_run=True)
    run = _usage(tmp, departments)
    usage_history(departments, months=30, cluster="minerva", start=date(2021, 1, 1))
    cluster = Cluster.objects.get(name="minerva")
    ClusterCapacity.objects.get_or_create(cluster=cluster, effective_from=date(2020, 1, 1),
                                          defaults={"cores": 1000, "nodes": 20})
    plan, _ = plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml", source="test")
    fit = forecast_fit_create(SeriesSpec("core_hours", cluster=cluster), horizon_months=12, backtest_origins=0)
    series = external_series_create(name="Sequencing cost", units="USD/genome", frequency="A",
                                    text="period,value\n2019,1000\n2020,900\n2021,800\n2022,700\n2023,650\n")
    snapshot = _storage(tmp)
    minerva_plan()
    statements_compute(month=date(2024, 3, 1))
    statements = {s.department.code: s for s in Statement.objects.filter(is_current=True, month=date(2024, 3, 1))}
    report = report_generate(report_create(design=designs["narrow"], cluster=cluster, enqueue=False).pk)
    job = BackgroundJob.objects.create(kind="test", label="a job of the admin's", created_by=users["admin"])
    optimizer_run = OptimizerRun.objects.order_by("pk").first()
    node = designs["narrow"].evaluations.first()
    from planner.models import NodeType

    node_type = NodeType.objects.order_by("pk").first()
    token, _ = token_create(user=users["viewer"], name="matrix", scope="read", days=7)

    def samples(code: str) -> RouteSamples:
        return RouteSamples(
            department_code=code, department_pk=departments["genomics" if code == "ggs" else "chemistry"].pk,
            job_pk=job.pk, ingest_run_pk=run.pk, storage_snapshot_pk=snapshot.pk, forecast_fit_pk=fit.pk,
            external_series_pk=series.pk, sequencer_plan_pk=plan.pk, statement_pk=statements[code].pk,
            design_pk=designs["narrow"].pk, optimizer_run_pk=optimizer_run.pk if optimizer_run else 0,
            report_pk=report.pk, node_type_name=node_type.name, node_type_pk=node_type.pk,
            storage_system_pk=StorageSystem.objects.order_by("pk").first().pk,
            benchmark_pk=Benchmark.objects.order_by("pk").first().pk, user_pk=users["viewer"].pk,
            api_token_pk=token.pk)

    del node
    return World(users=users, samples_a=samples("ggs"), samples_b=samples("scb"), departments=departments)
