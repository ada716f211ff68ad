"""Real identity servers (OIDC provider, SAML IdP) started by the tests in processes of their own."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers_200(url: str) -> Callable[[], bool]:
    """Ready when ``url`` answers 200."""
    def ready() -> bool:
        try:
            return requests.get(url, timeout=2).status_code == 200
        except requests.ConnectionError:
            return False
    return ready


@contextmanager
def serving(argv: Sequence[str], ready: Callable[[], bool], what: str, env: dict[str, Any] | None = None,
            timeout_s: float = 60) -> Iterator[subprocess.Popen[str]]:
    """Start ``argv`` from the repository root, wait until ``ready()`` says so, stop it after."""
    proc = subprocess.Popen(list(argv), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"{what} did not start: {proc.stdout.read() if proc.stdout else ''}")
        time.sleep(0.2)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
