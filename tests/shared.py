"""Where the real logs written by others live (../shared/data), and a skip when absent."""

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

requires_shared = pytest.mark.skipif(
    not SHARED_DATA.is_dir(),
    reason=f"real logs not present: {SHARED_DATA} is absent (CI places ../shared beside the clone)",
)
