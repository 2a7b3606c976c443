#!/usr/bin/env python3
"""The shared library exports the public API and nothing else.

usage: check_exports.py LIBRESIDENT.so INCLUDE_DIR...

Fails (exit 1) on any exported symbol that no public header declares with RS_API, and on
any RS_API declaration the library does not export (a function declared but missing, or
declared without the mark's effect). Prints both lists.
"""
import glob, os, re, subprocess, sys

# What the toolchain itself puts in every shared object.
TOOLCHAIN = {"_init", "_fini", "__bss_start", "_edata", "_end"}
DECL = re.compile(r'^RS_API\b[^;{]*?\b(rs_\w+)\s*\(', re.M)


def declared(include_dirs):
    names = set()
    for d in include_dirs:
        for path in glob.glob(os.path.join(d, "**", "*.h"), recursive=True):
            with open(path) as f:
                names.update(DECL.findall(f.read()))
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] not in ("U", "w", "v"):
            names.add(parts[2].split("@")[0])
    return names - TOOLCHAIN


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    lib, dirs = sys.argv[1], sys.argv[2:]
    decl, exp = declared(dirs), exported(lib)
    extra = sorted(exp - decl)
    missing = sorted(decl - exp)
    for s in extra:
        print(f"exported but not declared in a public header: {s}")
    for s in missing:
        print(f"declared RS_API but not exported: {s}")
    print(f"{len(exp)} exported, {len(decl)} declared, {len(extra)} extra, {len(missing)} missing")
    return 1 if extra or missing or not decl else 0


if __name__ == "__main__":
    sys.exit(main())
