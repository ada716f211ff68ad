"""The site with one row of every kind (world.py), built once per module inside a transaction
that is rolled back at the end, so other test modules never see it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[Any]:
    from django.db import transaction

    from tests.planner.access.world import build_world

    tmp: Path = tmp_path_factory.mktemp("world")
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield build_world(tmp)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
