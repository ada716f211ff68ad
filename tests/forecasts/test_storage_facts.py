"""Small-file planning facts: data in 4 KB inodes, sub-block waste, metadata and flash sizing."""

from __future__ import annotations

import numpy as np
import pytest

from forecasts.storage.facts import (
    flash_for_ingest,
    inode_fit,
    metadata_capacity,
    small_file_facts,
    sub_block_waste,
)
from forecasts.storage.stats import ScanAccumulator

TABLE2_MAX_BYTES = (3, 6, 10, 39, 340, 2048, 3789, 17408, 86016, 5 * 2**40)


def minerva_2013_scan(total_files: int = 200_000_000) -> ScanAccumulator:
    """A 200 M-file scan shaped like Table 2 (equal deciles, log-uniform inside each), built
    as an exact histogram rather than 200 M lines."""
    acc = ScanAccumulator()
    per_decile = total_files // 10
    low = 0
    for i, high in enumerate(TABLE2_MAX_BYTES):
        start = 0 if i == 0 else low + 1
        sizes = np.unique(np.geomspace(max(start, 1), high, num=2000).astype(np.int64))
        sizes = np.concatenate([[0], sizes]) if start == 0 else sizes
        counts = np.full(len(sizes), per_decile // len(sizes), dtype=np.int64)
        counts[-1] += per_decile - counts.sum()
        acc.add_size_counts(sizes, counts)
        low = high
    return acc


def test_about_130_million_files_fit_in_4kb_inodes_saving_4_tb_then_16_tb() -> None:
    scan = minerva_2013_scan()
    at_32k = inode_fit(scan, sub_block_bytes=32 * 1024)
    at_128k = inode_fit(scan, sub_block_bytes=128 * 1024)
    assert 120e6 <= at_32k.files <= 145e6  # paper: about 130 million, over half of 200 M
    assert at_32k.files_share > 0.5
    assert 3.0 <= at_32k.saved_tb <= 6.0  # paper: about 4 TB on the 2013 system
    assert 12.0 <= at_128k.saved_tb <= 24.0  # paper: about 16 TB with 128 KB sub-blocks
    assert at_128k.saved_bytes == 4 * at_32k.saved_bytes  # one sub-block per file either way


def test_the_paper_figures_are_one_sub_block_per_file() -> None:
    scan = ScanAccumulator()
    scan.add_size_counts([0, 100, 3000], [30_000_000, 50_000_000, 50_000_000])  # 130 M small files
    assert inode_fit(scan, sub_block_bytes=32 * 1024).saved_tb == pytest.approx(130e6 * 32768 / 1e12)
    assert round(inode_fit(scan, sub_block_bytes=32 * 1024).saved_tb) == 4
    assert round(inode_fit(scan, sub_block_bytes=128 * 1024).saved_tb) == 17  # 15.5 TiB: "16 TB"


def test_the_inode_capacity_is_a_parameter() -> None:
    scan = ScanAccumulator()
    scan.add_size_counts([3584, 3700, 3800, 4000], [1, 1, 1, 1])
    assert inode_fit(scan, inode_data_bytes=3584).files == 1
    assert inode_fit(scan, inode_data_bytes=3800).files == 3


def test_sub_block_waste_by_hand() -> None:
    scan = ScanAccumulator()
    scan.add_size_counts([0, 1, 32768, 40_000, 100_000], [2, 1, 1, 1, 1])
    waste = sub_block_waste(scan, sub_block_bytes=32768)
    # sub-blocks: 0 -> 1 (each), 1 -> 1, 32768 -> 1 (its bin mean), 40000 -> 2, 100000 -> 4
    assert waste.allocated_bytes == (2 + 1 + 1 + 2 + 4) * 32768
    assert waste.data_bytes == 1 + 32768 + 40_000 + 100_000
    assert waste.waste_bytes == waste.allocated_bytes - waste.data_bytes
    small = sub_block_waste(scan, sub_block_bytes=32768, max_size_bytes=32767)
    assert small.files == 3 and small.waste_bytes == 3 * 32768 - 1


def test_metadata_capacity_and_flash_sizing() -> None:
    meta = metadata_capacity(files=200_000_000, directories=18_000_000, inode_size_bytes=4096, headroom=1.5)
    assert meta.inodes == 218_000_000
    assert meta.needed_tb == pytest.approx(218e6 * 4096 * 1.5 / 1e12)
    assert metadata_capacity(files=10, replicas=2, headroom=1).needed_bytes == 10 * 4096 * 2
    flash = flash_for_ingest(daily_ingest_tb=10, days=7)  # Minerva: a week of 1-10 TB a day
    assert (flash.ingest_tb, flash.flash_tb) == (70, 87.5)
    with pytest.raises(ValueError):
        flash_for_ingest(daily_ingest_tb=1, fill_limit=0)


def test_small_file_facts_bundle_is_json_ready() -> None:
    import json

    scan = minerva_2013_scan(total_files=1_000_000)
    facts = small_file_facts(scan)
    json.dumps(facts)
    assert [f["sub_block_bytes"] for f in facts["inode_fit"]] == [32768, 131072]
    assert facts["metadata"]["inodes"] == 1_000_000
