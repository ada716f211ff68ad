"""Rollup reads cached until the rollups change: keyed by the last ingest, mappings and scans.

The usage, workload and dashboard pages aggregate the monthly rollups; the answers change
only when an ingest commits a batch, a mapping moves usage between departments, a
department or project is added, or a storage scan completes.  ``rollup_stamp()`` reads all
of that in one small statement (index-only maxima and the ingest runs' counters), and
``rollup_cached`` keeps a selector's answer under (selector, its arguments, the user's
departments, the stamp): a new ingest makes a new stamp, so nothing stale is ever served
and nothing needs invalidating.  The stamp itself is re-read at most every
``ROLLUP_STAMP_SECONDS`` per process (default 1 s), the longest a page can lag an ingest.

Cache: the ``rollups`` alias of CACHES (local memory of each process unless configured).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache, caches
from django.db import connection

from planner.roles import visible_department_ids

F = TypeVar("F", bound=Callable[..., Any])

_STAMP_SQL = """
SELECT concat_ws(':',
    (SELECT concat(max(id), '/', sum(records_read), '/', sum(jobs_ingested), '/', count(*))
       FROM forecasts_ingestrun),
    (SELECT max(id) FROM forecasts_usagemonthly),
    (SELECT max(id) FROM forecasts_workloadshapemonthly),
    -- small tables whose edits change what a rollup page shows: a checksum of their rows
    (SELECT concat(count(*), '/', sum(hashtext(m::text))) FROM forecasts_identitymapping m),
    (SELECT concat(count(*), '/', sum(hashtext(d::text))) FROM forecasts_department d),
    (SELECT concat(count(*), '/', sum(hashtext(p::text))) FROM forecasts_project p),
    (SELECT concat(count(*), '/', sum(hashtext(c::text))) FROM forecasts_clustercapacity c),
    (SELECT concat(count(*), '/', sum(hashtext(c::text))) FROM forecasts_cluster c),
    (SELECT concat(count(*), '/', max(id)) FROM forecasts_storagesnapshot WHERE status = 'completed'))
"""
_memo: dict[str, Any] = {"stamp": None, "at": 0.0, "db": None}


def rollup_stamp() -> str:
    """What the rollups look like now, in one short string (re-read at most every ROLLUP_STAMP_SECONDS)."""
    now = time.monotonic()
    every = float(getattr(settings, "ROLLUP_STAMP_SECONDS", 1.0))
    db = connection.settings_dict["NAME"]
    if _memo["stamp"] is None or now - _memo["at"] >= every or _memo["db"] != db or connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute(_STAMP_SQL)
            _memo.update(stamp=cursor.fetchone()[0], at=now, db=db)
    return str(_memo["stamp"])


def _scope(user: Any) -> str:
    if user is None:
        return "trusted"
    ids = visible_department_ids(user)
    return "all" if ids is None else ",".join(map(str, sorted(ids)))


def rollup_cached(fn: F) -> F:
    """Cache a rollup selector's answer for a person (``user`` reduced to their departments).

    Only calls for a person are cached (pages and the API pass ``user``): commands and
    benchmarks call without one and always query.  Inside a transaction (tests, services)
    nothing is cached either: the stamp may not be what other connections see.
    """
    name = f"{fn.__module__}.{fn.__qualname__}"
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def cached(*args: Any, **kwargs: Any) -> Any:
        bound = dict(signature.bind(*args, **kwargs).arguments)
        for param in signature.parameters.values():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                bound.update(bound.pop(param.name, {}))  # **filters: their names, not one dict
        if bound.get("user") is None or not getattr(settings, "ROLLUP_CACHE", True) or connection.in_atomic_block:
            return fn(*args, **kwargs)
        parts = [name, rollup_stamp(), _scope(bound["user"])]
        parts += [f"{k}={v!r}" for k, v in sorted(bound.items()) if k != "user"]
        key = "rollup:" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
        store = caches["rollups"]
        found = store.get(key)
        if found is None:
            found = (fn(*args, **kwargs),)
            store.set(key, found, timeout=3600)
        return found[0]

    return cached  # type: ignore[return-value]


def cached_by_inputs(prefix: str, inputs: Any, compute: Callable[[], Any], timeout_s: int = 24 * 3600) -> Any:
    """``compute()`` kept in the default cache under a digest of everything it is a pure function
    of (``inputs``, JSON-serialisable): the same inputs give the same answer, so a stored one is
    never stale, and changed inputs are another key."""
    key = f"{prefix}:" + hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
    found = cache.get(key)
    if found is None:
        found = (compute(),)  # a tuple, so a None answer is cached too
        cache.set(key, found, timeout=timeout_s)
    return found[0]
