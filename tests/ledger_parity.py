"""What the two ledger parity checks share (check_ledger_parity.py for `resident pipeline`,
check_ledger_parity_examples.py for the examples): the fields compared, the one entry
left out, and the report of two runs' entries side by side."""

FIELDS = ("kind", "direction", "implicit", "bytes", "cause", "argument")


def timing_dependent(kind, cause):
    """A copy from or to pageable memory waits for the stream's earlier work and records
    that wait only if the stream was still busy (src/transfer/copy.c): whether it appears
    depends on how fast the kernel before it ran, not on the backend's bookkeeping."""
    return kind == "wait" and str(cause or "").endswith(": earlier work")


def show(entry):
    return " ".join("%s=%s" % (f, v) for f, v in zip(FIELDS, entry) if v is not None)


def report(what, a, b, labels):
    """Print whether entry lists a and b (runs labelled labels[0], labels[1]) agree, with
    the entries around the first difference when not; 1 when they differ, else 0."""
    diff = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), None)
    if diff is None and len(a) == len(b):
        print("ok   %s: %d entries alike" % (what, len(a)))
        return 0
    i = diff if diff is not None else min(len(a), len(b))
    print("FAIL %s: %d entries on %s, %d on %s; first difference at entry %d" %
          (what, len(a), labels[0], len(b), labels[1], i + 1))
    for j in range(max(0, i - 2), min(max(len(a), len(b)), i + 3)):
        print("  %3d %-5s: %s" % (j + 1, labels[0], show(a[j]) if j < len(a) else "-"))
        print("      %-5s: %s" % (labels[1], show(b[j]) if j < len(b) else "-"))
    return 1
