"""Load on the production stack: gunicorn (as in docker/), PostgreSQL, Redis and a worker, on the
demo data, driven by locust (headless, bounded in time, 127.0.0.1 only).

    DATABASE_URL=postgres://.../bench CELERY_BROKER_URL=redis://127.0.0.1:6379/7 \\
        manage.py bench_load --users 50 --seconds 60

Steps: migrate and load the demo (idempotent), collect static files with hashed names
(STATIC_MANIFEST=1, as the image does), start gunicorn with the image's command line on a
free 127.0.0.1 port and one Celery worker, open one session per simulated person (planners
and department viewers of the demo), visit every page a few times per gunicorn worker,
concurrently (a production server is warm), then run locust (``FastHttpUser``: the load
generator shares the cores it measures) for ``--seconds`` and print the figures (JSON on
stdout; docs/performance.md quotes them), with the CPU spent per request by gunicorn, by
locust and by the PostgreSQL backends serving the run: what a shared machine does not inflate
the way it inflates latency.  Everything it started is stopped at the end, also on Ctrl-C.
"""

from __future__ import annotations

import csv
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

ROOT = Path(settings.BASE_DIR)
LOCUSTFILE = ROOT / "planner" / "web" / "loadtest.py"
# gunicorn's command line in docker/Dockerfile (bound to 127.0.0.1 here)
GUNICORN = ["planner.wsgi:application", "--workers", "3", "--timeout", "120"]
TARGETS = {"errors": 0, "requests_per_s": 100.0, "p95_ms": 300.0}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis_answers(url: str) -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


def _wait_http(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 (127.0.0.1 only)
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise CommandError(f"{url}: the server did not answer 200 within {timeout_s:.0f} s")


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of a process and its children so far: gunicorn's own cost per
    request, which other work on a shared machine does not inflate the way it inflates latency."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - locust brings psutil
        return 0.0
    parent = psutil.Process(pid)
    total = 0.0
    for proc in [parent, *parent.children(recursive=True)]:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            continue
    return total


def _postgres_backends_cpu(database: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving ``database`` (on this machine), by pid."""
    try:
        import psutil
    except ImportError:  # pragma: no cover - locust brings psutil
        return {}
    found = {}
    for proc in psutil.process_iter(["cmdline"]):
        try:
            title = " ".join(proc.info["cmdline"] or [])
            if title.startswith("postgres:") and f" {database} " in f" {title} ":
                t = proc.cpu_times()
                found[proc.pid] = t.user + t.system
        except psutil.Error:
            continue
    return found


def _children_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process's finished, waited-for children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def paths_by_role() -> dict[str, list[list[Any]]]:
    """[name, path, weight] per role: dashboard, usage, workload, forecast, design, chargeback pages
    and API lists, with the demo's rows for detail pages."""
    from django.urls import reverse

    from forecasts.chargeback.models import Statement
    from forecasts.demand.models import ForecastFit, SequencerPlan
    from planner.designs.models import Design

    design = Design.objects.order_by("pk").first()
    fit = ForecastFit.objects.order_by("pk").first()
    plan = SequencerPlan.objects.order_by("pk").first()
    statement = Statement.objects.filter(is_current=True).order_by("-month", "pk").first()
    common: list[list[Any]] = [
        ["dashboard", reverse("dashboard"), 3], ["usage", reverse("usage"), 3],
        ["usage chart.json", reverse("usage-chart-json"), 1], ["workload", reverse("workload"), 2],
        ["storage", reverse("storage"), 1], ["chargeback", reverse("chargeback"), 2],
        ["api usage monthly", reverse("api-usage-monthly"), 2],
        ["api departments", reverse("department-list"), 1],
        ["api statements", reverse("chargeback-statement-list"), 1],
    ]
    if statement:
        common.append(["chargeback statement", reverse("chargeback-statement", args=[statement.pk]), 1])
    planner = [*common, ["forecasts", reverse("forecasts"), 2], ["designs", reverse("designs:list"), 2],
               ["api designs", reverse("api-design-list"), 1], ["api forecasts", reverse("forecast-list"), 1],
               ["api node types", reverse("api-node-type-list"), 1],
               ["api ingestions", reverse("ingestion-list"), 1]]
    if design:
        planner.append(["design", reverse("designs:detail", args=[design.pk]), 2])
    if fit:
        planner.append(["forecast fit", reverse("forecast-fit", args=[fit.pk]), 1])
    if plan:
        planner.append(["sequencer plan", reverse("forecast-plan", args=[plan.pk]), 1])
    return {"planner": planner, "viewer": common}


def open_sessions(per_role: int) -> list[list[str]]:
    """Logged-in sessions of the demo's planner and department viewer (no password needed)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    users = {"planner": User.objects.filter(groups__name="planner").order_by("pk").first(),
             "viewer": User.objects.filter(groups__name="department viewer").order_by("pk").first()}
    sessions = []
    for role, user in users.items():
        if user is None:
            raise CommandError(f"the demo has no {role} user: run `manage.py load_demo` first")
        for _ in range(per_role):
            s = SessionStore()
            s[SESSION_KEY], s[HASH_SESSION_KEY] = str(user.pk), user.get_session_auth_hash()
            s[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            s.create()
            sessions.append([role, s.session_key])
    return sessions


def read_stats(prefix: Path) -> dict[str, Any]:
    """The aggregated and per-page figures from locust's ``<prefix>_stats.csv``."""
    rows = list(csv.DictReader((prefix.parent / f"{prefix.name}_stats.csv").open()))
    pages = {}
    total: dict[str, Any] = {}
    for row in rows:
        figures = {"requests": int(row["Request Count"]), "failures": int(row["Failure Count"]),
                   "requests_per_s": round(float(row["Requests/s"]), 1),
                   "p50_ms": float(row["50%"] or 0), "p95_ms": float(row["95%"] or 0),
                   "p99_ms": float(row["99%"] or 0), "mean_ms": round(float(row["Average Response Time"]), 1)}
        if row["Name"] == "Aggregated":
            total = figures
        else:
            pages[row["Name"]] = figures
    return {"total": total, "pages": pages}


class Command(BaseCommand):
    help = ("Drive the production stack (gunicorn as in docker/, PostgreSQL, Redis, a worker) on the demo "
            "data with locust: --users concurrent people for --seconds; prints requests/s, p50/p95, errors.")

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--users", type=int, default=50, help="concurrent simulated people (default 50)")
        parser.add_argument("--seconds", type=int, default=60, help="how long locust runs (default 60)")
        parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (default 3, as the image)")
        parser.add_argument("--no-demo", action="store_true", help="skip migrate + load_demo (already loaded)")
        parser.add_argument("--out", default=str(Path(settings.DATA_DIR) / "bench-load"),
                            help="where locust's CSV files go")

    def handle(self, *args: Any, **options: Any) -> None:
        say = lambda msg: self.stderr.write(msg)  # noqa: E731
        broker = settings.CELERY_BROKER_URL
        if not broker.startswith("redis://"):
            raise CommandError("CELERY_BROKER_URL must be a Redis URL (the production broker), "
                               "e.g. redis://127.0.0.1:6379/7")
        if not _redis_answers(broker):
            raise CommandError(f"{broker}: Redis does not answer")
        if settings.EMBEDDED_DATABASE:
            say("note: DATABASE_URL is unset, so this runs on the embedded PostgreSQL server")
        if not options["no_demo"]:
            from django.core.management import call_command

            from planner.demo import load_demo

            call_command("migrate", interactive=False, verbosity=0)
            load_demo(say)
        env = {**os.environ, "DEBUG": "0", "STATIC_MANIFEST": "1", "ALLOWED_HOSTS": "127.0.0.1",
               "DATABASE_URL": settings.DATABASE_URL, "CELERY_BROKER_URL": broker,
               "PLANNER_DATA_DIR": str(settings.DATA_DIR), "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"}
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env,
                       check=True)
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        children: list[subprocess.Popen[bytes]] = []
        try:
            children.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", *GUNICORN, "--workers", str(options["workers"]),
                 "--bind", f"127.0.0.1:{port}", "--log-level", "warning"], cwd=ROOT, env=env))
            children.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "planner", "worker", "--concurrency", "1",
                 "--loglevel", "warning", "--without-mingle", "--without-gossip"], cwd=ROOT, env=env,
                stdout=subprocess.DEVNULL, stderr=open(out / "worker.log", "wb")))  # noqa: SIM115
            _wait_http(f"{base}/healthz", 60)
            sessions = open_sessions(per_role=max(1, options["users"] // 2))
            paths = paths_by_role()
            say(f"gunicorn on {base} ({options['workers']} workers), a worker on {broker}; warming up")
            self._warm(base, sessions, paths, rounds=2 * options["workers"])
            prefix = out / "locust"
            say(f"locust: {options['users']} people for {options['seconds']} s")
            cpu_before, load_before = _cpu_seconds(children[0].pid), os.getloadavg()[0]
            locust_before = _children_cpu_seconds()
            database = settings.DATABASES["default"]["NAME"]
            pg_before = _postgres_backends_cpu(database)
            subprocess.run(
                [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--host", base,
                 "-u", str(options["users"]), "-r", str(options["users"]), "-t", f"{options['seconds']}s",
                 "--csv", str(prefix), "--only-summary", "--stop-timeout", "5", "--loglevel", "WARNING"],
                cwd=ROOT, check=False, stdout=subprocess.DEVNULL,
                env={**env, "BENCH_SESSIONS": json.dumps(sessions), "BENCH_PATHS": json.dumps(paths),
                     "BENCH_SESSION_COOKIE": settings.SESSION_COOKIE_NAME})
            stats = read_stats(prefix)
            cpu = _cpu_seconds(children[0].pid) - cpu_before
            requests = max(stats["total"]["requests"], 1)
            stats["total"]["gunicorn_cpu_ms_per_request"] = round(1000 * cpu / requests, 1)
            # the load generator's own share of the same cores (it has exited: a waited-for child)
            stats["total"]["locust_cpu_ms_per_request"] = round(
                1000 * (_children_cpu_seconds() - locust_before) / requests, 1)
            # the backends still connected at the end (gunicorn's connections persist): a lower bound
            pg = sum(cpu - pg_before.get(pid, 0.0) for pid, cpu in _postgres_backends_cpu(database).items())
            stats["total"]["postgres_cpu_ms_per_request"] = round(1000 * pg / requests, 1)
            stats["total"]["load_average_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
        total = stats["total"]
        met = {"errors": total.get("failures", 1) <= TARGETS["errors"],
               "requests_per_s": total.get("requests_per_s", 0) >= TARGETS["requests_per_s"],
               "p95_ms": total.get("p95_ms", 1e9) < TARGETS["p95_ms"]}
        summary = {"users": options["users"], "seconds": options["seconds"], "gunicorn_workers": options["workers"],
                   "cpus": os.cpu_count(), **total, "targets": TARGETS, "targets_met": met, "pages": stats["pages"]}
        self.stdout.write(json.dumps(summary, indent=1))

    def _warm(self, base: str, sessions: list[list[str]], paths: dict[str, list[list[Any]]], rounds: int) -> None:
        """Visit every page ``rounds`` times per role, ``rounds`` at a time, as the first people of the day
        would: each gunicorn worker is a process of its own (its own imports, caches and compiled
        forecast models), so only concurrent visits reach every worker before locust starts."""
        from concurrent.futures import ThreadPoolExecutor

        keys = {}
        for role, key in sessions:
            keys.setdefault(role, key)
        visits = [(keys[role], path) for role in keys for _, path, _ in paths[role]]

        def visit(item: tuple[str, str]) -> None:
            key, path = item
            request = urllib.request.Request(base + path, headers={
                "Cookie": f"{settings.SESSION_COOKIE_NAME}={key}", "Accept": "application/json, text/html"})
            try:
                urllib.request.urlopen(request, timeout=60).read()  # noqa: S310 (127.0.0.1 only)
            except OSError as exc:
                self.stderr.write(f"warm-up: {path}: {exc}")

        with ThreadPoolExecutor(max_workers=rounds) as pool:
            list(pool.map(visit, [visit_ for visit_ in visits for _ in range(rounds)]))
