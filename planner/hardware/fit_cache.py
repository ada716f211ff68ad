"""The performance model's fit and leave-one-out, shared by every process through a file in DATA_DIR.

design_model caches them per process: the first request of the Benchmarks page in each web or worker process
paid the leave-one-out (one refit per observation, 1.5-2.5 s, more under load). Here the pair is pickled once
under DATA_DIR/cache/, named by a hash of the benchmark file and of the model's code, so every process (gunicorn
workers, Celery, commands) reads it in under a millisecond, and a changed file or model makes a new entry. The
file is the product's own, written atomically; a broken or unreadable one is recomputed.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings

from planner.hardware import calibration, design_model, perf_inputs, performance
from planner.hardware.design_model import fitted_benchmarks, fitted_leave_one_out, remember_calibration
from planner.hardware.perf_inputs import DEFAULT_BENCHMARKS

_CODE = (calibration, performance, perf_inputs, design_model)


_NAMES: dict[tuple[str, float], str] = {}  # (file, modification time) -> hash: the code is this process's own


def cache_path(path: str | Path = DEFAULT_BENCHMARKS) -> Path:
    """Where the fit of ``path`` is kept: its name hashes the file and the model's code (hashed once per process
    and file version, not at every page view)."""
    p = Path(path)
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _NAMES:
        h = hashlib.sha256(p.read_bytes())
        for module in _CODE:
            h.update(Path(str(module.__file__)).read_bytes())
        _NAMES[key] = h.hexdigest()[:24]
    return Path(settings.DATA_DIR) / "cache" / f"performance-fit-{_NAMES[key]}.pickle"


def shared_calibration(path: str | Path = DEFAULT_BENCHMARKS) -> tuple[Any, Any, str]:
    """(fit, leave-one-out, "file" or "computed"): from the shared file when there, else computed and written."""
    where = cache_path(path)
    try:
        fitted, loo = pickle.loads(where.read_bytes())  # noqa: S301 - the product's own file in DATA_DIR
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
        fitted, loo = fitted_benchmarks(path), fitted_leave_one_out(path)
        _write(where, pickle.dumps((fitted, loo)))
        return fitted, loo, "computed"
    remember_calibration(path, fitted, loo)
    return fitted, loo, "file"


def _write(where: Path, data: bytes) -> None:
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where.parent, prefix=".fit-")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, where)  # atomic: a reader sees the whole file or none
    except OSError:
        pass  # a read-only data directory: each process computes its own, as before
