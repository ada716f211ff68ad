"""Deterministic synthetic Slurm accounting (sacct --parsable2, XDMoD's 26-field layout).

Used by ``bench_ingest`` (tens of millions of realistic records) and by the demo
institution (a few years of a growing genomics-heavy site).  The mix follows what the
Minerva paper found: most jobs are short single-core genomics pipeline steps submitted
with six-day wall-clock requests, while a minority of wide molecular-dynamics jobs hold
most of the core-hours.  Pure core: no Django.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

FIELDS = ("JobID|JobIDRaw|Cluster|Partition|QOS|Account|Group|GID|User|UID|Submit|Eligible|Start|End|"
          "Elapsed|ExitCode|State|NNodes|NCPUS|ReqCPUS|ReqMem|ReqTRES|AllocTRES|Timelimit|NodeList|JobName")


@dataclass(frozen=True)
class Person:
    user: str
    group: str  # unix group = department code
    account: str  # scheduler account = project name
    profile: str  # genomics | md | mixed | gpu


@dataclass(frozen=True)
class Profile:
    share: float  # share of all jobs
    cores: tuple[tuple[int, float], ...]  # (cores, weight)
    median_minutes: float
    sigma: float
    partition: str
    request_hours: float


PROFILES: dict[str, Profile] = {
    "genomics": Profile(0.80, ((1, 0.72), (2, 0.06), (4, 0.08), (8, 0.06), (12, 0.04), (16, 0.04)),
                        4.0, 1.9, "express", 144.0),
    "mixed": Profile(0.14, ((1, 0.4), (4, 0.2), (8, 0.2), (16, 0.15), (32, 0.05)), 45.0, 1.6, "premium", 24.0),
    "md": Profile(0.04, ((64, 0.4), (128, 0.3), (256, 0.2), (512, 0.1)), 600.0, 0.9, "premium", 48.0),
    "gpu": Profile(0.02, ((8, 0.6), (16, 0.4)), 240.0, 1.0, "gpu", 48.0),
}
CORES_PER_NODE = 64


def default_people(n_users: int = 300, seed: int = 7) -> list[Person]:
    """A site's users: departments and projects in Minerva-like proportions (genomics heavy)."""
    rng = random.Random(seed)
    departments = [("ggs", "genomics", 0.45), ("onco", "genomics", 0.12), ("psych", "genomics", 0.08),
                   ("scb", "md", 0.10), ("neuro", "mixed", 0.07), ("pharm", "md", 0.04),
                   ("cardio", "mixed", 0.04), ("micro", "genomics", 0.04), ("pophealth", "mixed", 0.03),
                   ("bmi", "gpu", 0.02), ("path", "gpu", 0.01)]
    projects = {"ggs": ["autism-wgs", "schizophrenia-exomes", "clinical-exome-core", "rare-disease-cohort"],
                "scb": ["md-membrane-proteins", "docking-screens"], "neuro": ["connectomics"],
                "onco": ["tumour-evolution", "single-cell-atlas"], "psych": ["psychgenomics"],
                "pharm": ["drug-response"], "cardio": ["cardiac-imaging"], "micro": ["microbiome"],
                "pophealth": ["ehr-cohorts"], "bmi": ["network-biology"], "path": ["digital-pathology"]}
    people = []
    weights = [w for _, _, w in departments]
    for i in range(n_users):
        code, profile, _ = rng.choices(departments, weights)[0]
        people.append(Person(f"u{i:04d}", code, rng.choice(projects[code]), profile))
    return people


def _format_ts(epoch: int, _cache: dict[int, str] = {}) -> str:  # noqa: B006 - deliberate per-day cache
    day, rest = divmod(epoch, 86400)
    prefix = _cache.get(day)
    if prefix is None:
        prefix = datetime.fromtimestamp(day * 86400, UTC).strftime("%Y-%m-%dT")
        _cache[day] = prefix
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{prefix}{hours:02d}:{minutes:02d}:{seconds:02d}"


def _duration(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{days}-{hours:02d}:{minutes:02d}:{secs:02d}" if days else f"{hours:02d}:{minutes:02d}:{secs:02d}"


def slurm_lines(n_jobs: int, *, start: datetime, end: datetime, cluster: str = "minerva",
                people: list[Person] | None = None, growth_per_year: float = 0.0, seed: int = 1,
                first_job_id: int = 1_000_000, chunk: int = 65_536) -> Iterator[str]:
    """``n_jobs`` headerless sacct lines spread over [start, end), ordered by submit time.

    ``growth_per_year`` bends the arrival rate (0.4 = 40% more jobs a year later), so the
    demo's monthly series have a trend worth forecasting.  Random draws are vectorised
    with numpy per chunk; the output depends only on the arguments.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    people = people or default_people()
    by_profile: dict[str, list[Person]] = {}
    for person in people:
        by_profile.setdefault(person.profile, []).append(person)
    names = [p for p in PROFILES if p in by_profile]
    shares = np.array([PROFILES[p].share for p in names])
    shares /= shares.sum()
    t0, t1 = int(start.timestamp()), int(end.timestamp())
    span = t1 - t0
    g = math.log1p(growth_per_year) / (365 * 86400) if growth_per_year else 0.0
    job_id = first_job_id
    for base in range(0, n_jobs, chunk):
        n = min(chunk, n_jobs - base)
        # Inverse-CDF of an exponentially growing arrival rate keeps submits ordered.
        u = (base + np.arange(n) + rng.random(n)) / n_jobs
        offsets = np.log1p(u * math.expm1(g * span)) / g if g else u * span
        # Python lists: indexing numpy scalars one by one would cost more than the draws.
        submits = (t0 + offsets.astype(np.int64)).tolist()
        which = rng.choice(len(names), size=n, p=shares).tolist()
        gauss = rng.standard_normal(n).tolist()
        uniform = rng.random((n, 5)).tolist()
        expo = rng.exponential(1.0, n).tolist()
        for i in range(n):
            profile_name = names[which[i]]
            profile = PROFILES[profile_name]
            pool = by_profile[profile_name]
            person = pool[int(uniform[i][0] * len(pool))]
            acc = 0.0
            cores = profile.cores[-1][0]
            for c, w in profile.cores:
                acc += w
                if uniform[i][1] < acc:
                    cores = c
                    break
            nodes = -(-cores // CORES_PER_NODE)
            limit_s = int(profile.request_hours * 3600)
            run_s = min(limit_s, max(1, int(60 * profile.median_minutes * math.exp(gauss[i] * profile.sigma))))
            submit = submits[i]
            begin = submit + int(expo[i] * (120 + 30 * cores))
            r = uniform[i][2]
            if r < 0.9:
                state, exit_code, finish = "COMPLETED", "0:0", begin + run_s
            elif r < 0.97:
                state, exit_code, finish = "FAILED", "1:0", begin + run_s
            else:
                state, exit_code, finish = "TIMEOUT", "0:15", begin + limit_s
            job_id += 1
            gpus = 2 if profile_name == "gpu" else 0
            mem_mb = 4000 * cores
            req = f"billing={cores},cpu={cores},mem={mem_mb}M,node={nodes}"
            alloc = req + (f",gres/gpu={gpus}" if gpus else "")
            first = int(uniform[i][3] * 380) + 1
            node = f"n{first:03d}" if nodes == 1 else f"n[{first:03d}-{first + nodes - 1:03d}]"
            partition = "gpu" if gpus else ("scavenger" if uniform[i][4] < 0.05 else profile.partition)
            qos = "high" if partition == "premium" and uniform[i][4] > 0.8 else "normal"
            ts_submit = _format_ts(submit)
            yield (f"{job_id}|{job_id}|{cluster}|{partition}|{qos}|{person.account}|{person.group}|5000|"
                   f"{person.user}|{person.user[1:]}|{ts_submit}|{ts_submit}|{_format_ts(begin)}|"
                   f"{_format_ts(finish)}|{_duration(finish - begin)}|{exit_code}|{state}|{nodes}|{cores}|"
                   f"{cores}|{mem_mb}Mn|{req}|{alloc}|{_duration(limit_s)}|{node}|job{(base + i) % 9973:x}\n")
