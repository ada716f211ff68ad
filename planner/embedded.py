"""The embedded services used when no server is configured: PostgreSQL and a broker.

With DATABASE_URL unset the product runs on a real PostgreSQL started from the
``pgserver`` wheel in the data directory (never SQLite: one SQL dialect, COPY,
percentiles).  pgserver serialises start-up with an inter-process file lock and
reuses a running postmaster, so the dev-server autoreloader, the Celery worker and
the test run all attach to one server safely.  We start it with cleanup_mode=None
so no process stops it behind another's back; ``make run`` stops it on Ctrl-C with
``python -m planner.embedded stop``.

With CELERY_BROKER_URL unset, kombu's filesystem transport (a spool directory in
the data directory) carries tasks to a real worker process: no server needed, same
task semantics as Redis in production.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from pathlib import Path

DATABASE_NAME = "planner"


def _quiet_platformdirs() -> None:
    # pgserver asks platformdirs for a runtime dir; on servers XDG_RUNTIME_DIR is often unset.
    os.environ.setdefault("XDG_RUNTIME_DIR", f"/tmp/runtime-{os.getuid()}")
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(mode=0o700, parents=True, exist_ok=True)
    warnings.filterwarnings("ignore", module="platformdirs")


def postgres_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded PostgreSQL and return a URL to the product's database."""
    _quiet_platformdirs()
    import pgserver

    pgdata = data_dir / "postgres"
    pgdata.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(pgdata, cleanup_mode=None)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        # another process may create it between our check and create
        with contextlib.suppress(Exception):
            server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    return server.get_uri(DATABASE_NAME)


def stop_postgres(data_dir: Path) -> bool:
    """Stop the embedded server if it runs; returns whether one was stopped.

    As root, pgserver runs PostgreSQL as its own system user ("pgserver"), and pg_ctl refuses
    to run as root: stop it as that user, as pgserver itself does.
    """
    _quiet_platformdirs()
    import subprocess

    from pgserver._commands import pg_ctl

    pgdata = data_dir / "postgres"
    if not (pgdata / "postmaster.pid").exists():
        return False
    user = "pgserver" if os.name == "posix" and os.geteuid() == 0 else None
    try:
        pg_ctl(["-m", "fast", "-w", "stop"], pgdata=pgdata, user=user)
    except subprocess.CalledProcessError:
        return False  # not running after all (a stale postmaster.pid)
    return True


def filesystem_broker_options(data_dir: Path) -> dict[str, object]:
    """Transport options for kombu's filesystem transport, folders created on demand."""
    root = data_dir / "broker"
    folders = {"data_folder_in": root / "queue", "data_folder_out": root / "queue",
               "processed_folder": root / "processed", "control_folder": root / "control"}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    options: dict[str, object] = {key: str(path) for key, path in folders.items()}
    options["store_processed"] = False
    return options


def main(argv: list[str]) -> int:
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "planner.settings")
    from django.conf import settings  # the data directory as the settings resolved it

    DATA_DIR = settings.DATA_DIR

    if argv[1:] == ["stop"]:
        print("embedded PostgreSQL stopped" if stop_postgres(DATA_DIR) else "embedded PostgreSQL not running")
        return 0
    if argv[1:] == ["url"]:
        print(postgres_url(DATA_DIR))
        return 0
    print("usage: python -m planner.embedded stop|url", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
