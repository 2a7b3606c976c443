import numpy as np
import pytest

import resident as rs


def test_ledger_counts_explicit_copies():
    a = np.arange(1000, dtype=np.float64)
    with rs.ledger() as led:
        x = rs.asarray(a)
        y = x * 5
        b = y.get()
    np.testing.assert_array_equal(b, a * 5)
    assert led.copies == 2 and led.bytes == 16000
    assert led.explicit_copies == 2 and led.implicit_copies == 0
    assert led.h2d["explicit"] == 1 and led.d2h["explicit"] == 1
    assert led.kernels >= 1
    kinds = [e["kind"] for e in led.entries]
    assert kinds.count("copy") == 2
    copies = [e for e in led.entries if e["kind"] == "copy"]
    assert copies[0]["direction"] == "H2D" and copies[0]["bytes"] == 8000
    table = str(led)
    assert "H2D explicit" in table and "D2H explicit" in table


def test_ledger_nests_and_sees_implicit():
    a = np.ones(100, dtype=np.float32)
    x = rs.asarray(a)
    with rs.ledger() as outer:
        with rs.ledger() as inner:
            y = x + a           # a NumPy operand: an implicit H2D copy
        z = y.get()
    assert inner.implicit_copies == 1 and inner.copies == 1
    assert outer.copies == 2
    assert "implicit" in str(inner)
    del z


def test_ledger_reading_too_early():
    led = rs.ledger()
    with pytest.raises(AttributeError):
        led.copies


def test_guard_per_direction():
    x = rs.ones(4)
    with rs.transfer_guard("d2h=disallow_explicit"):
        rs.asarray(np.ones(3))
        with pytest.raises(rs.TransferRefused):
            x.get()
    x.get()


def test_benchmark_reports_copies_on_their_own_line():
    x = rs.ones(1000)
    r = rs.benchmark(lambda: x * 5, n_repeat=20, n_warmup=2)
    assert len(r.host_ms) == 20 and len(r.device_ms) == 20
    assert r.copies == 0
    r2 = rs.benchmark(lambda: x.get(), n_repeat=5, n_warmup=1, name="get")
    assert r2.copies == 1 and r2.bytes == 8000
    lines = str(r2).splitlines()
    assert lines[0].startswith("get") and any("copies" in ln for ln in lines[1:])
    assert r2.cpu_times.shape == (5,)


def test_benchmark_propagates_exceptions():
    def bad():
        raise KeyError("boom")
    with pytest.raises(KeyError):
        rs.benchmark(bad, n_repeat=3, n_warmup=0)


def test_memory_statistics():
    st = rs.memory_stats()
    assert st["allocator"] in ("pool", "direct", "async")
    x = rs.empty((1 << 20,), dtype="uint8")
    st2 = rs.memory_stats()
    assert st2["in_use_bytes"] >= st["in_use_bytes"] + (1 << 20)
    del x
    rs.synchronize()
    assert "pool" in rs.memory_report() or "allocator" in rs.memory_report()
    rs.release_memory()
    p = rs.memory_stats("pinned")
    assert "in_use_bytes" in p
    with pytest.raises(ValueError):
        rs.memory_stats("elsewhere")


def test_memory_limit():
    rs.release_memory()
    rs.set_memory_limit(rs.memory_stats()["in_use_bytes"] + (64 << 20))
    try:
        with pytest.raises(MemoryError) as ei:
            rs.empty((128 << 20,), dtype="uint8")
        assert ei.value.status_name == "RS_ERR_OUT_OF_MEMORY"
        assert ei.value.report  # the allocator's report rides on the exception
    finally:
        rs.set_memory_limit(None)


def test_guard_log_mode_logs_implicit_copies(capfd):
    x = rs.ones(4)
    with rs.transfer_guard("log"):
        y = x + np.ones(4)
    err = capfd.readouterr().err
    assert "H2D" in err or "implicit" in err
    np.testing.assert_array_equal(y.get(), np.full(4, 2.0))
