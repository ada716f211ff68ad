"""Locust users for ``manage.py bench_load`` (run by locust, never imported by the product).

Each simulated person holds a logged-in session (created by the command, passed in
``BENCH_SESSIONS``: a JSON list of ``[role, session key]``) and walks the pages its role
sees, with a short pause between requests, the way a planner or a department viewer clicks
through a planning session.  ``BENCH_PATHS`` (JSON: role -> list of ``[name, path, weight]``)
says where; the command builds it from the URL conf and the demo's rows.

The client is locust's ``FastHttpUser`` (geventhttpclient), the locust authors' choice for
load: it spends a fraction of the CPU of ``HttpUser`` (requests) per request, and locust
runs on the same cores as the server it measures.
"""

from __future__ import annotations

import itertools
import json
import os
import random
from typing import Any

from locust import between, task
from locust.contrib.fasthttp import FastHttpUser

SESSION_COOKIE = os.environ.get("BENCH_SESSION_COOKIE", "sessionid")
SESSIONS: list[list[str]] = json.loads(os.environ.get("BENCH_SESSIONS", "[]"))
PATHS: dict[str, list[list[Any]]] = json.loads(os.environ.get("BENCH_PATHS", "{}"))
_next_session = itertools.cycle(SESSIONS or [["planner", ""]])


class Person(FastHttpUser):  # type: ignore[misc]
    """A logged-in person clicking through the pages of their role (0.1 to 0.5 s between clicks)."""

    wait_time = between(0.1, 0.5)

    def on_start(self) -> None:
        self.role, key = next(_next_session)
        self.cookie = {"Cookie": f"{SESSION_COOKIE}={key}"}
        routes = PATHS.get(self.role) or next(iter(PATHS.values()))
        self.routes = [(name, path) for name, path, _ in routes]
        self.weights = [float(weight) for _, _, weight in routes]

    @task
    def visit(self) -> None:
        name, path = random.choices(self.routes, weights=self.weights)[0]
        headers = {**self.cookie, "Accept": "application/json"} if path.startswith("/api/") else self.cookie
        with self.client.get(path, name=name, headers=headers, allow_redirects=False,
                             catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code} for {path}")
