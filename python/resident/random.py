"""Random numbers from a seed (Philox4x32-10; the same bits on the GPU and the host), into
new arrays or existing ones (``out=``: no allocation)."""
import numpy as _np

from . import _resident as _r


class Generator:
    """``rng = resident.random.default_rng(seed)``; every call draws the next numbers of
    the seed's stream, so a sequence of calls is reproducible."""

    def __init__(self, seed=0):
        self.seed = int(seed) & (2**64 - 1)
        self.offset = 0

    def _fill(self, kind, out, a, b):
        self.offset = _r._random_fill(kind, out, self.seed, self.offset, a, b)
        return out

    def _new(self, size, dtype, device, default):
        dtype = default if dtype is None else dtype
        return _r.empty(() if size is None else size, dtype=dtype, device=device)

    def random(self, size=None, dtype=None, *, out=None, device=None):
        """Uniform in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype=dtype, out=out, device=device)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None, *, out=None, device=None):
        """Uniform in [low, high) (float16/32/64, complex: both parts)."""
        out = self._new(size, dtype, device, "float64") if out is None else out
        return self._fill(0, out, float(low), float(high))

    def standard_normal(self, size=None, dtype=None, *, out=None, device=None):
        return self.normal(0.0, 1.0, size, dtype=dtype, out=out, device=device)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None, *, out=None, device=None):
        """Normal with mean loc and standard deviation scale."""
        out = self._new(size, dtype, device, "float64") if out is None else out
        return self._fill(1, out, float(loc), float(scale))

    def integers(self, low, high=None, size=None, dtype=None, *, out=None, device=None):
        """Integers uniform in [low, high)."""
        if high is None:
            low, high = 0, low
        out = self._new(size, dtype, device, "int64") if out is None else out
        return self._fill(2, out, int(low), int(high))


def default_rng(seed=0):
    """A Generator for seed."""
    return Generator(seed)


_global = Generator(0)


def seed(s):
    """Restart the module-level generator."""
    global _global
    _global = Generator(s)


def rand(*shape, dtype=None, device=None):
    return _global.random(shape, dtype=dtype, device=device)


def randn(*shape, dtype=None, device=None):
    return _global.standard_normal(shape, dtype=dtype, device=device)


def uniform(low=0.0, high=1.0, size=None, dtype=None, *, out=None, device=None):
    return _global.uniform(low, high, size, dtype, out=out, device=device)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, *, out=None, device=None):
    return _global.normal(loc, scale, size, dtype, out=out, device=device)


def randint(low, high=None, size=None, dtype=None, *, out=None, device=None):
    return _global.integers(low, high, size, dtype, out=out, device=device)


_ = _np
