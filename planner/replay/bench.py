"""Replay benchmark: ``python -m planner.replay.bench [--jobs N] [--swf-dir DIR] [--repeat K]``.

Prints one line per measurement and, last, a JSON object with every figure:

* ``jit``: seconds to compile both kernels in a fresh process with an empty numba cache (cold),
  and to load them from the on-disk cache in a second fresh process (warm);
* ``traces``: jobs/s of the kernel (best of ``--repeat``) on the archive traces at the golden
  sizes and on KTH-SP2 at 0.6x its size (a saturated machine, long queues);
* ``synthetic``: a fresh process replays ``--jobs`` generated jobs (default 10 million) on a
  4,096-processor pool at ~70 % offered load, and reports jobs/s and its peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_SWF = Path(__file__).resolve().parents[3] / "shared" / "data" / "swf"
TRACES = {
    "cloudsimplus_NASA-iPSC-1993-3.1-cln.swf.gz": (1.0, 0.8, 1.25),
    "cloudsimplusfork_KTH-SP2-1996-2.1-cln.swf.gz": (1.0, 0.8, 1.25, 0.6),
}


def synthetic(n: int, processors: int = 4096, load: float = 0.7, seed: int = 18) -> Any:
    """``n`` jobs: power-of-two sizes up to 256, log-normal run times, Poisson arrivals at ``load``."""
    from planner.replay.workload import Workload

    rng = np.random.default_rng(seed)
    procs = np.minimum(2 ** rng.geometric(0.45, n) // 2, 256).astype(np.int64)
    run = np.minimum(rng.lognormal(np.log(600.0), 1.6, n), 172800).astype(np.int64)
    req = (run * rng.uniform(1.0, 3.0, n)).astype(np.int64) + 60
    mean_work = float(np.mean(procs.astype(np.float64) * run))
    gap = mean_work / (load * processors)
    submit = np.cumsum(rng.exponential(gap, n)).astype(np.int64)
    return Workload(submit_s=submit, run_s=run, procs=procs, req_s=req)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_synthetic(n: int) -> dict[str, Any]:
    """In this process: generate, replay, summarise; peak RSS covers all three."""
    from planner.replay.engine import replay, warm_up
    from planner.replay.summary import summarise
    from planner.replay.workload import Machine

    warm_up()
    base = _peak_rss_mb()
    t0 = time.perf_counter()
    workload = synthetic(n)
    t_gen = time.perf_counter() - t0
    t1 = time.perf_counter()
    result = replay(workload, Machine.pool(4096))
    summary = summarise(result)
    t_all = time.perf_counter() - t1
    return {"jobs": n, "generate_s": round(t_gen, 2), "kernel_s": round(result.kernel_seconds, 3),
            "jobs_per_second": round(n / result.kernel_seconds), "replay_and_summary_s": round(t_all, 2),
            "mean_wait_s": round(summary.mean_wait or 0.0, 1), "utilisation": round(summary.utilisation or 0.0, 4),
            "peak_rss_mb": round(_peak_rss_mb(), 1), "rss_before_jobs_mb": round(base, 1)}


def _child(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})}, cwd=Path(__file__).resolve().parents[2])
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def jit_times() -> dict[str, float]:
    code = ("import json,time; t=time.perf_counter(); from planner.replay.engine import warm_up; "
            "i=time.perf_counter()-t; w=warm_up(); print(json.dumps({'import_s': i, 'compile_s': w}))")
    with tempfile.TemporaryDirectory() as cache:
        cold = _child(code, {"NUMBA_CACHE_DIR": cache})
        warm = _child(code, {"NUMBA_CACHE_DIR": cache})
    return {"cold_compile_s": round(cold["compile_s"], 2), "warm_cache_load_s": round(warm["compile_s"], 3),
            "import_s": round(warm["import_s"], 2)}


def trace_figures(swf_dir: Path, repeat: int) -> list[dict[str, Any]]:
    from planner.replay.engine import replay, warm_up
    from planner.replay.summary import summarise
    from planner.replay.swf_jobs import read_swf
    from planner.replay.workload import Machine

    warm_up()
    rows = []
    for name, scales in TRACES.items():
        path = swf_dir / name
        if not path.is_file():
            print(f"skipped {name}: not found in {swf_dir}", file=sys.stderr)
            continue
        trace = read_swf(path)
        assert trace.max_procs is not None
        for scale in scales:
            size = int(np.floor(trace.max_procs * scale))
            best = min(replay(trace.workload, Machine.pool(size)).kernel_seconds for _ in range(repeat))
            s = summarise(replay(trace.workload, Machine.pool(size)))
            rows.append({"trace": name.split("_", 1)[1].split("-cln")[0], "processors": size, "scale": scale,
                         "jobs": s.jobs_simulated, "utilisation": round(s.utilisation or 0.0, 3),
                         "mean_wait_s": round(s.mean_wait or 0.0), "kernel_s": round(best, 4),
                         "jobs_per_second": round(s.jobs_simulated / best)})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m planner.replay.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=10_000_000, help="synthetic jobs (default 10,000,000)")
    ap.add_argument("--swf-dir", type=Path, default=DEFAULT_SWF)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--child-synthetic", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child_synthetic:
        print(json.dumps(run_synthetic(args.child_synthetic)))
        return 0
    figures: dict[str, Any] = {"jit": jit_times()}
    print(f"jit: {figures['jit']}")
    figures["traces"] = trace_figures(args.swf_dir, args.repeat)
    for row in figures["traces"]:
        print(f"{row['trace']:>20} P={row['processors']:>4} util={row['utilisation']:.3f} "
              f"mean wait={row['mean_wait_s']:>8} s  {row['jobs_per_second']:>12,} jobs/s")
    if args.jobs > 0:
        out = subprocess.run([sys.executable, "-m", "planner.replay.bench", "--child-synthetic", str(args.jobs)],
                             capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2])
        figures["synthetic"] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"synthetic: {figures['synthetic']}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
