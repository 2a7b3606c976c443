"""No reference leaks: many calls, failing ones included, leave the reference counts of
their arguments and the library's live arrays where they were."""
import sys

import numpy as np
import pytest

import resident as rs


def test_operand_refcounts_are_stable():
    a = np.arange(16, dtype=np.float64)
    x = rs.asarray(a)
    h = rs.asarray(a, device="host")
    out = rs.empty(16)
    objs = [a, x, h, out]
    before = [sys.getrefcount(o) for o in objs]
    live = rs.live_stats()["arrays"]
    for _ in range(200):
        y = x * 5 + h
        rs.add(x, a, out=out)
        rs.sum(x, axis=0)
        x[2:5]
        x.reshape(4, 4).T
        np.asarray(h)
        rs.from_dlpack(x)
        rs.asarray(x.__cuda_array_interface__ and x)
        with pytest.raises(ValueError):
            x + rs.ones(3)
        with pytest.raises(TypeError):
            rs.add(x, x, out=a)
        del y
    assert [sys.getrefcount(o) for o in objs] == before
    rs.synchronize()
    assert rs.live_stats()["arrays"] == live


def test_wrapped_numpy_memory_stays_alive_through_views():
    a = np.arange(10.0)
    h = rs.asarray(a, device="host")
    v = h[2:6]
    del a, h
    np.testing.assert_array_equal(np.asarray(v), [2.0, 3.0, 4.0, 5.0])
