"""Collectives between processes, one rank (one device) each: resident/collective.h.

One process makes an id and hands it to the others (a pipe, a file, MPI); each joins::

    id = resident.comm_unique_id()              # in one process, sent to the others
    with resident.Comm(nranks, rank, id) as comm:
        comm.all_reduce(x)                      # in place: x = the sum over the ranks
        comm.all_reduce(x, out=y, op="max")

On CUDA this is NCCL (loaded at run time; NotImplementedError names it where it is
missing); on the simulator, shared memory between processes on one machine. Arrays are
device arrays of this process (``resident.asarray(a)``). A rank that does not come makes
the others fail after RESIDENT_COMM_TIMEOUT seconds (resident.NotReadyError) instead of
hanging. Each call is a "collective" entry of the ledger.
"""
from . import _resident

__all__ = ["Comm", "comm_unique_id"]


def comm_unique_id():
    """A new id (bytes) for Comm(nranks, rank, id), on this process's backend."""
    return _resident._comm_unique_id()


class Comm:
    """A communicator of nranks processes, this one being `rank` (0 <= rank < nranks)."""

    def __init__(self, nranks, rank, id):
        self._cap = _resident._comm_init_rank(int(nranks), int(rank), bytes(id))
        self.nranks, self.rank = _resident._comm_info(self._cap)

    def all_reduce(self, x, out=None, op="sum"):
        """out = op over the ranks of x (sum, prod, min, max, mean); in place without out."""
        out = x if out is None else out
        _resident._comm_call(self._cap, "all_reduce", x, out, op, -1, -1)
        return out

    def reduce_scatter(self, x, out, op="sum"):
        """out (x.size / nranks elements) = op over the ranks of their block `rank` of x."""
        _resident._comm_call(self._cap, "reduce_scatter", x, out, op, -1, -1)
        return out

    def all_gather(self, x, out):
        """out (nranks * x.size elements) = every rank's x, in rank order."""
        _resident._comm_call(self._cap, "all_gather", x, out, "sum", -1, -1)
        return out

    def broadcast(self, x, root=0):
        """In place: x = rank root's x."""
        _resident._comm_call(self._cap, "broadcast", None, x, "sum", int(root), -1)
        return x

    def send_recv(self, send=None, to=-1, recv=None, source=-1):
        """Send `send` to rank `to` and receive `recv` from rank `source`, in one step."""
        _resident._comm_call(self._cap, "send_recv", send, recv, "sum", int(to), int(source))
        return recv

    def destroy(self):
        if self._cap is not None:
            _resident._comm_destroy(self._cap)
            self._cap = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def __repr__(self):
        return f"resident.Comm(rank {self.rank} of {self.nranks})"
