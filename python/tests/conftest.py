import gc
import os

import numpy as np
import pytest

os.environ.setdefault("RESIDENT_BACKEND", os.environ.get("RESIDENT_BACKEND", "auto"))

import resident  # noqa: E402


@pytest.fixture(autouse=True)
def no_leaks():
    """Every test ends with no live array of its own (the C library's counters)."""
    gc.collect()
    before = resident.live_stats()
    yield
    gc.collect()
    resident.synchronize()
    after = resident.live_stats()
    assert after["arrays"] <= before["arrays"], (before, after)
    assert after["buffers"] <= before["buffers"], (before, after)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
