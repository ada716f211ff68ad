"""Throughput benchmark of the scan fast path: ``python -m forecasts.storage.bench [lines]``.

Generates a realistic ``find -printf '%s\\t%u\\t%g\\t%T@\\t%y\\t%p\\n'`` scan deterministically
(directory entries followed by their files, Minerva-like sizes: half the files under ~340 B,
a long tail to terabytes; a few hundred thousand directories, half of them holding one file),
feeds it block by block through ``FindTsvParser`` + ``ScanAccumulator`` and prints one JSON
line: lines per second of parse + accumulate (generation excluded) and the process's peak
resident memory.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Iterator

import numpy as np

from forecasts.storage.scan.find import FindTsvParser
from forecasts.storage.stats import ScanAccumulator

SCAN_TIME_EPOCH = 1_377_993_600  # 2013-09-01, the Minerva scan month
# Upper size of each decile band, as in Table 2 of the Minerva paper (bytes)
_DECILE_MAX_BYTES = (3, 6, 10, 39, 340, 2048, 3789, 17408, 86016, 5 * 2**40)
_USERS = [f"user{i:03d}".encode() for i in range(120)]
_GROUPS = [f"lab{i:02d}".encode() for i in range(11)]


def generate_blocks(lines: int, block_lines: int = 65536, seed: int = 2013) -> Iterator[bytes]:
    """Deterministic scan text, in blocks of about ``block_lines`` lines."""
    rng = np.random.default_rng(seed)
    lows = np.array((0,) + _DECILE_MAX_BYTES[:-1], dtype=np.float64) + 1
    highs = np.array(_DECILE_MAX_BYTES, dtype=np.float64)
    highs[-1] = 64 * 2**30  # the generator's tail stops at 64 GiB; Table 2's 5 TB is one file
    produced = 0
    dir_no = 0
    while produced < lines:
        n = min(block_lines, lines - produced)
        # files per directory: half hold one file, a few hold thousands
        per_dir = np.minimum(np.floor(np.exp(rng.exponential(1.6, size=n))).astype(np.int64), 20000)
        ends = np.cumsum(per_dir + 1)
        n_dirs = int(np.searchsorted(ends, n)) + 1
        per_dir = per_dir[:n_dirs]
        band = rng.integers(0, 10, size=n)
        u = rng.random(n)
        sizes = np.floor(lows[band] * (highs[band] / lows[band]) ** u).astype(np.int64) - 1
        sizes = np.maximum(sizes, 0)
        ages = rng.exponential(400 * 86400, size=n).astype(np.int64)
        users = rng.integers(0, len(_USERS), size=n_dirs)
        out: list[bytes] = []
        i = 0
        for d in range(n_dirs):
            user = _USERS[users[d]]
            group = _GROUPS[users[d] % len(_GROUPS)]
            base = b"/sc/orga/projects/%s/%s/run_%07d" % (group, user, dir_no + d)
            mtime = SCAN_TIME_EPOCH - int(ages[i])
            out.append(b"4096\t%s\t%s\t%d.0000000000\td\t%s" % (user, group, mtime, base))
            i += 1
            k = min(int(per_dir[d]), n - i)
            chunk_sizes, chunk_ages = sizes[i : i + k].tolist(), ages[i : i + k].tolist()
            out.extend(
                b"%d\t%s\t%s\t%d.1234567890\tf\t%s/sample_%05d.vcf"
                % (s, user, group, SCAN_TIME_EPOCH - a, base, j)
                for j, (s, a) in enumerate(zip(chunk_sizes, chunk_ages, strict=True))
            )
            i += k
            if i >= n:
                break
        dir_no += n_dirs
        produced += i
        yield b"\n".join(out) + b"\n"


def main(lines: int = 10_000_000) -> dict[str, object]:
    acc = ScanAccumulator(scan_time_epoch=SCAN_TIME_EPOCH)
    parser = FindTsvParser()
    gen_s = [0.0, 0.0]  # wall, CPU seconds spent generating (excluded from the rates)

    def timed_blocks() -> Iterator[bytes]:
        blocks = generate_blocks(lines)
        while True:
            t, c = time.perf_counter(), time.process_time()
            block = next(blocks, None)
            gen_s[0] += time.perf_counter() - t
            gen_s[1] += time.process_time() - c
            if block is None:
                return
            yield block

    start, cpu_start = time.perf_counter(), time.process_time()
    acc.consume_blocks(timed_blocks(), parser)
    wall_s = time.perf_counter() - start
    parse_s = wall_s - gen_s[0]
    parse_cpu_s = time.process_time() - cpu_start - gen_s[1]
    stats = acc.to_dict()
    report = stats["lines"]
    assert isinstance(report, dict)
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result: dict[str, object] = {
        "lines": report["read"],
        "entries": report["entries"],
        "rejected": report["rejected"],
        "files": stats["files"],
        "directories": stats["directories"]["count"],  # type: ignore[index]
        "parse_accumulate_s": round(parse_s, 3),
        "lines_per_s": round(report["read"] / parse_s) if parse_s else None,
        "parse_accumulate_cpu_s": round(parse_cpu_s, 3),
        "lines_per_cpu_s": round(report["read"] / parse_cpu_s) if parse_cpu_s else None,
        "wall_s_including_generation": round(wall_s, 3),
        "peak_rss_mb": round(peak_rss_mb, 1),
        "median_size_bytes": stats["median_size_bytes"],
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
