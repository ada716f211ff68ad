"""A cluster whose jobs come through the real ingest path, and the same jobs read straight from the log.

3,000 deterministic Slurm jobs submitted during 2023 (the synthetic generator of the demo), on a
cluster "replaytest" of 256 cores (4 x 64-core nodes). ``expected_workload`` parses the same file
with the Slurm parser, independently of the database, so a test can check that the replay of the
stored jobs is the replay of the log.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np

CLUSTER = "replaytest"
N_JOBS = 3000
START = datetime(2023, 1, 1, tzinfo=UTC)
END = datetime(2024, 1, 1, tzinfo=UTC)


def write_log(tmp_path: Path) -> Path:
    from forecasts.accounting.parsers.synth import slurm_lines

    path = tmp_path / "replaytest.sacct"
    with path.open("w") as out:
        out.writelines(slurm_lines(N_JOBS, start=START, end=END, cluster=CLUSTER, seed=18))
    return path


def load_cluster(tmp_path: Path) -> Path:
    """Ingest the log (real path) and record the cluster's size; returns the log's path."""
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute
    from forecasts.models import Cluster, ClusterCapacity

    path = write_log(tmp_path)
    run = ingest_run_execute(ingest_run_create(cluster_name=CLUSTER, fmt="slurm", paths=[path], tz="UTC").pk)
    assert run.jobs_ingested > 0.95 * N_JOBS, run.summary()
    ClusterCapacity.objects.create(cluster=Cluster.objects.get(name=CLUSTER), effective_from=date(2022, 6, 1),
                                   cores=256, nodes=4, note="4 x 64-core nodes")
    return path


def expected_workload(path: Path) -> Any:
    """The log's jobs submitted in 2023 as replay arrays, parsed without the database."""
    from forecasts.accounting.parsers import slurm
    from forecasts.accounting.parsers.records import JobRecord
    from planner.replay.workload import Workload

    rows = []
    with path.open("rb") as f:
        for item in slurm.parse(f, cluster=CLUSTER):
            if not isinstance(item, JobRecord) or item.start is None or item.end is None:
                continue
            submit = item.submit or item.start
            if not START <= submit < END:
                continue
            run = round((item.end - item.start).total_seconds())
            req = item.req_walltime_s if item.req_walltime_s and item.req_walltime_s > 0 else run
            rows.append((int(submit.timestamp()), item.line, max(run, 0), item.cores, req))
    rows.sort()
    a = np.array(rows, dtype=np.int64)
    return Workload(submit_s=a[:, 0].copy(), run_s=a[:, 2].copy(), procs=a[:, 3].copy(), req_s=a[:, 4].copy())
