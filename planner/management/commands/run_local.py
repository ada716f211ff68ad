"""Serve the product on one machine: migrate, load the demo, run a worker and the web server.

Used by `make run`.  Ctrl-C stops the worker, the web server and (when embedded) the
PostgreSQL server, in that order.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from planner.demo import load_demo


def runserver_command(addr: str, *, debug: bool) -> list[str]:
    """The web server's command. Reloading on a changed source file is for development (DEBUG=1): under a demo
    a reload that fails (a file saved half-way) ends the web server, and with it the worker and the database."""
    return [sys.executable, "manage.py", "runserver", addr, *([] if debug else ["--noreload"])]


class Command(BaseCommand):
    help = "Set up and serve the product with demo data on 127.0.0.1:8000 (what `make run` calls)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000", metavar="HOST:PORT",
                            help="where the web server listens (default 127.0.0.1:8000; `make run ADDR=...`)")
        parser.add_argument("--no-demo", action="store_true", help="do not load the demo institution")

    def handle(self, *args: Any, **options: Any) -> None:
        say = lambda msg: self.stderr.write(msg)  # noqa: E731
        started = time.monotonic()
        try:
            call_command("migrate", interactive=False, verbosity=0)
            credentials = {} if options["no_demo"] else load_demo(say)
        except BaseException:  # a failed set-up (or Ctrl-C during it) leaves no database running
            self._stop_database()
            raise
        env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "0"), "PYTHONUNBUFFERED": "1"}
        children = [
            subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "planner", "worker", "--beat", "--loglevel", "warning",
                 "--concurrency", "2", "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")],
                env=env,
            ),
            subprocess.Popen(runserver_command(options["addr"], debug=settings.DEBUG), env=env),
        ]
        self.stdout.write("")
        ready_s = time.monotonic() - started
        self.stdout.write(f"  Serving on http://{options['addr']}/  (ready in {ready_s:.1f} s)")
        if "admin" in credentials:
            self.stdout.write(f"  Log in as  admin / {credentials['admin']}")
            others = ", ".join(f"{u} / {p}" for u, p in credentials.items() if u != "admin")
            if others:
                self.stdout.write(f"  Also: {others}")
        self.stdout.write("  Press Ctrl-C to stop the web server, the worker and the embedded database.\n")
        self._wait(children)

    def _wait(self, children: list[subprocess.Popen[bytes]]) -> None:
        stopping = False

        def stop(*_: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.3)
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
            self._stop_database()
            self.stderr.write("Stopped web server, worker and database.")

    def _stop_database(self) -> None:
        if settings.EMBEDDED_DATABASE:
            from django.db import connections

            connections.close_all()
            from planner.embedded import stop_postgres

            stop_postgres(settings.DATA_DIR)
