"""The ledger and the guard as context managers, and the benchmark helper."""
import time as _time

from . import _resident as _r

DEFAULT_PCIE_GBS = 12.0


class Ledger:
    """What happened inside a ``with resident.ledger() as led:`` block.

    After the block: ``copies``, ``bytes``, ``implicit_copies``, ``explicit_copies``,
    ``implicit_bytes``, ``explicit_bytes``, per direction ``h2d``/``d2h``/``d2d``/``h2h``/``p2p``
    (dicts of explicit/implicit counts, bytes and ms), ``kernels``, ``waits``,
    ``entries`` (one dict per copy, kernel launch and host wait) and ``str(led)``, the
    library's printed table (copies on lines of their own).
    """

    def __init__(self, bandwidth_gbs=DEFAULT_PCIE_GBS):
        self.bandwidth_gbs = bandwidth_gbs
        self._stats = None
        self._first = 0
        self.wall_ms = 0.0
        self.entries = []

    def __enter__(self):
        self._first = _r._ledger_begin()
        self._t0 = _time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall_ms = (_time.perf_counter() - self._t0) * 1e3
        self._stats = _r._ledger_end()
        self.entries = _r._ledger_entries(self._first)
        return False

    def __getattr__(self, name):
        st = self.__dict__.get("_stats")
        if st is not None and name in st and not name.startswith("_"):
            return st[name]
        if st is None and not name.startswith("_"):
            raise AttributeError(f"ledger.{name}: read it after the with block")
        raise AttributeError(name)

    def stats(self):
        """All figures as a dict."""
        return {k: v for k, v in (self._stats or {}).items() if not k.startswith("_")}

    def table(self, bandwidth_gbs=None):
        """The library's report (rs_ledger_print)."""
        if self._stats is None:
            return "(ledger still open)"
        return _r._ledger_format(self._stats["_raw"], self.wall_ms,
                                 bandwidth_gbs or self.bandwidth_gbs)

    def __str__(self):
        return self.table()

    def __repr__(self):
        if self._stats is None:
            return "<resident.Ledger (open)>"
        return (f"<resident.Ledger copies={self.copies} bytes={self.bytes} "
                f"implicit={self.implicit_copies} kernels={self.kernels}>")


def ledger(bandwidth_gbs=DEFAULT_PCIE_GBS):
    """A ledger scope: ``with resident.ledger() as led: ...; print(led.copies, led)``.
    Scopes nest (one context: open and close them from one thread at a time)."""
    return Ledger(bandwidth_gbs)


class transfer_guard:
    """``with resident.transfer_guard('disallow'):`` refuses implicit copies (a NumPy array
    passed to a device op or kernel) with resident.TransferRefused; 'disallow_explicit'
    refuses every copy, 'log' logs the implicit ones, 'allow' lets all through. A per
    direction text ('h2d=disallow,d2h=log') or direction='h2d' narrows it. The previous
    modes come back at the end of the block."""

    def __init__(self, mode="disallow", direction=None):
        self.mode = mode
        self.direction = direction

    def __enter__(self):
        _r._guard_push(self.mode, self.direction)
        return self

    def __exit__(self, *exc):
        _r._guard_pop()
        return False


class BenchmarkResult:
    """Timings of resident.benchmark: ``host_ms`` / ``device_ms`` (one sample per repeat,
    host time including a synchronization), ``copies`` / ``bytes`` / ``copy_ms`` per
    repeat; str() prints the library's lines (copies on their own line)."""

    def __init__(self, d):
        self.name = d["name"]
        self.host_ms = d["host_ms"]
        self.device_ms = d["device_ms"]
        self.copies = d["copies"]
        self.bytes = d["bytes"]
        self.copy_ms = d["copy_ms"]
        self.copies_total = {k: v for k, v in d["copies_total"].items() if not k.startswith("_")}
        self._text = d["text"]

    # CuPy's names (cupyx.profiler.benchmark): seconds, as arrays
    @property
    def cpu_times(self):
        import numpy as np
        return np.asarray(self.host_ms) / 1e3

    @property
    def gpu_times(self):
        import numpy as np
        return np.asarray(self.device_ms)[None, :] / 1e3

    def __str__(self):
        return self._text.rstrip("\n")

    __repr__ = __str__


def benchmark(func, args=(), kwargs=None, *, n_repeat=10000, n_warmup=10, name=None):
    """Time ``func(*args, **kwargs)`` as cupyx.profiler.benchmark does, honestly: n_warmup
    unrecorded calls, then n_repeat calls each timed on the host (with a synchronization
    at the end) and on the device (events), and the copies inside counted."""
    return BenchmarkResult(_r._benchmark(func, tuple(args), kwargs, n_repeat, n_warmup, name))
