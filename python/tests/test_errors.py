import numpy as np
import pytest

import resident as rs


def test_status_carries_name_and_message():
    x = rs.ones((3, 4))
    with pytest.raises(ValueError) as ei:
        x.reshape(5, 2)
    e = ei.value
    assert isinstance(e, rs.ResidentError)
    assert e.status_name == "RS_ERR_SHAPE" and e.status == -10
    assert "12" in e.c_message and "RS_ERR_SHAPE" in str(e)


def test_broadcast_dtype_axis_errors():
    with pytest.raises(ValueError) as ei:
        rs.ones(3) + rs.ones(4)
    assert ei.value.status_name == "RS_ERR_BROADCAST"
    with pytest.raises(ValueError) as ei:
        rs.ones(3) & rs.ones(3)
    assert ei.value.status_name == "RS_ERR_DTYPE"
    with pytest.raises(IndexError) as ei:
        rs.sum(rs.ones((2, 2)), axis=5)
    assert isinstance(ei.value, ValueError)


def test_type_errors():
    with pytest.raises(TypeError):
        rs.zeros("abc")
    with pytest.raises(TypeError):
        rs.zeros(3, dtype="object")
    with pytest.raises(TypeError):
        rs.add(rs.ones(2), rs.ones(2), out=np.ones(2))
    with pytest.raises(TypeError):
        rs.ones(2) + "x"


def test_out_of_memory_is_memory_error():
    with pytest.raises(MemoryError) as ei:
        rs.empty((1 << 62,), dtype="uint8")
    assert isinstance(ei.value, rs.ResidentError)


def test_guard_refuses_implicit_copies():
    x = rs.ones(4)
    a = np.ones(4)
    with rs.transfer_guard("disallow"):
        with pytest.raises(rs.TransferRefused) as ei:
            x + a
        assert ei.value.status_name == "RS_ERR_TRANSFER_REFUSED"
        y = rs.asarray(a)          # explicit: allowed
    assert rs.guard_modes()["h2d"] == "allow"
    with rs.transfer_guard("disallow_explicit"):
        with pytest.raises(rs.TransferRefused):
            y.get()
    with pytest.raises(ValueError):
        with rs.transfer_guard("sometimes"):
            pass


def test_failed_calls_leak_nothing():
    before = rs.live_stats()
    for _ in range(50):
        with pytest.raises(ValueError):
            rs.ones((3, 4)).reshape(7)
        with pytest.raises(ValueError):
            rs.add(rs.ones(3), rs.ones(5))
    after = rs.live_stats()
    assert after["arrays"] == before["arrays"]
