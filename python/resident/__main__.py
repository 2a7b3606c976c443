"""``python -m resident <command> ...``: the library's own command-line tool (pipeline,
bandwidth, bench, info), bundled with the package - the same program, the same output."""
import os
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "resident")
    if not os.path.exists(exe):
        sys.stderr.write(f"resident: the command-line tool is missing ({exe})\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + list(argv))


if __name__ == "__main__":
    sys.exit(main())
