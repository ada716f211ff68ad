"""Load the demo institution idempotently: organisation, accounts, then each area's data.

Each capability appends a step to DEMO_STEPS; every step must be safe to run again
(update_or_create, or skip when its data is present) so a second `make run` is quick.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from importlib import import_module
from pathlib import Path

import yaml
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import transaction

from forecasts.accounting.models import Department, Institution, Project
from planner.roles import ADMIN, PLANNER, VIEWER

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
DEMO_FILE = FIXTURES / "demo_institution.yaml"
Log = Callable[[str], None]


def _password(username: str) -> str:
    """A per-install demo password, generated once and kept in the data directory."""
    path = Path(settings.DATA_DIR) / f"demo-password-{username}"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(9))
        path.chmod(0o600)
    return path.read_text().strip()


def _user(username: str, group: str, *, superuser: bool = False) -> tuple[User, str]:
    password = _password(username)
    user, created = User.objects.get_or_create(username=username)
    if created or not user.check_password(password):
        user.set_password(password)
    user.is_staff = superuser
    user.is_superuser = superuser
    user.save()
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user, password


@transaction.atomic
def load_organisation(log: Log) -> dict[str, str]:
    data = yaml.safe_load(DEMO_FILE.read_text())
    inst = data["institution"]
    Institution.objects.update_or_create(pk=1, defaults=inst)
    depts = {}
    for d in data["departments"]:
        depts[d["code"]], _ = Department.objects.update_or_create(
            code=d["code"], defaults={"name": d["name"]}
        )
    Department.objects.get_or_create(code=Department.UNASSIGNED_CODE, defaults={"name": Department.UNASSIGNED})
    for p in data["projects"]:
        defaults = {"pi": p["pi"], "department": depts[p["department"]]}
        Project.objects.update_or_create(name=p["name"], defaults=defaults)
    credentials = {}
    _, credentials["admin"] = _user("admin", ADMIN, superuser=True)
    for p in data.get("planners", []):
        _, credentials[p["username"]] = _user(p["username"], PLANNER)
    for v in data.get("viewers", []):
        user, credentials[v["username"]] = _user(v["username"], VIEWER)
        for code in v["departments"]:
            depts[code].viewers.add(user)
    log(f"organisation: {inst['name']}, {len(depts)} departments, {len(data['projects'])} projects")
    return credentials


# (label, dotted path of a function taking a log callable); imported lazily, run in order.
DEMO_STEPS: list[tuple[str, str]] = [
    ("accounting logs", "forecasts.accounting.demo.load_jobs"),
    ("a re-sent extract with damaged lines", "forecasts.accounting.demo.load_resent_extract"),
    ("workload rollups and storage scans", "forecasts.workload.demo.load"),
    ("hardware catalog and Minerva designs", "planner.designs.demo.load_hardware_and_designs"),
    ("chargeback rates and statements", "forecasts.chargeback.demo.demo_load"),
    ("demand forecasts: Minerva plan, usage fits, disk price", "forecasts.demand.demo.load_forecasts"),
    ("Minerva narrow-flash design on demand paths, 90% plan queued", "planner.designs.demo_paths.load_design_on_paths"),
    ("a design for the demo cluster from its core-hours forecast, its 90% plan bought",
     "planner.designs.demo_paths.load_design_from_forecast"),
    ("queue waits: Minerva narrow-flash design on nexus's jobs", "planner.replay.demo.load_demo_replay"),
    ("grant justification report (Minerva narrow-flash design, nexus)", "planner.reports.demo.load_demo_report"),
    ("grant justification report (nexus's own 90% plan)", "planner.reports.demo.load_cluster_plan_report"),
    ("Minerva design with the disk price trend", "planner.designs.demo.load_price_trend_design"),
]


def load_demo(log: Log) -> dict[str, str]:
    """Run every demo step; returns the demo accounts' credentials.

    On a database the demo was loaded into before, people have worked since: a node type a demo scenario names
    renamed or deleted, a plan edited. A step that then fails is said in one line and skipped, and the product
    still starts (it used to refuse: ``ScenarioError: purchases[3].node_type: unknown node type 'haswell'``).
    On a new database every step must work, and a failure stops the start as before."""
    loaded_before = Institution.objects.exists()
    credentials = load_organisation(log)
    for label, dotted in DEMO_STEPS:
        module, _, func = dotted.rpartition(".")
        log(f"{label}...")
        started = time.monotonic()
        try:
            getattr(import_module(module), func)(log)
        except Exception as exc:
            if not loaded_before:
                raise
            log(f"  skipped: {type(exc).__name__}: {exc} (the demo's data was changed here since it was loaded; "
                "the rest of the product is unaffected)")
            continue
        log(f"  ({time.monotonic() - started:.1f} s)")
    return credentials
