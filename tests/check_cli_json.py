"""The --json output of every command, parsed by a real JSON parser: the schema
(docs/cli-json.md) and the values a run on the simulator must give.
usage: check_cli_json.py <resident command>"""
import json
import os
import re
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
ENV = dict(os.environ, RESIDENT_BACKEND="sim", RESIDENT_SIM_DEVICE_MEMORY="256MiB")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([CLI, *args], env=ENV, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def run_json(*args):
    rc, out, err = run(*args, "--json")
    check(rc == 0, f"{args}: exit {rc}: {err}")
    check(err == "", f"{args} --json: stderr not empty (no terminal, no progress line): {err!r}")
    return json.loads(out)  # stdout holds the JSON alone


def keys(obj, names, where):
    for k in names:
        check(k in obj, f"{where}: no key {k!r}")


version = run("--version")[1].splitlines()[0].split()[1]

# info
d = run_json("info")
keys(d, ["schema", "version", "default_backend", "default_backend_error", "backends"], "info")
check(d["schema"] == "resident.info/1", "info schema")
check(d["version"] == version, "info version is --version's")
check(d["default_backend"] == "sim", "info: RESIDENT_BACKEND=sim is the default backend")
sim = [b for b in d["backends"] if b["name"] == "sim"]
check(len(sim) == 1 and sim[0]["available"] and len(sim[0]["devices"]) == 1, "info: one sim device")
dev = sim[0]["devices"][0]
keys(dev, ["index", "name", "total_memory", "free_memory", "multiprocessors", "compute_major",
           "compute_minor", "max_threads_per_block", "shared_memory_per_block", "warp_size",
           "can_map_host_memory", "managed_memory", "pci", "pcie"], "info device")
check(dev["total_memory"] == 256 << 20, "info: the simulator has RESIDENT_SIM_DEVICE_MEMORY")
check(dev["warp_size"] == 32 and dev["multiprocessors"] >= 1, "info: warp and multiprocessors")

# pipeline: 3 kernels, 1 MB: implicit 6 copies (in and out per launch), explicit 2
d = run_json("pipeline", "--kernels", "3", "--size", "1MB")
keys(d, ["schema", "version", "backend", "device", "kernels", "elements", "dtype", "array_bytes",
         "host_memory", "bandwidth_gbs", "runs", "summary"], "pipeline")
check(d["schema"] == "resident.pipeline/1" and d["backend"] == "sim", "pipeline schema, backend")
check(d["elements"] == 250000 and d["array_bytes"] == 1000000 and d["dtype"] == "float32", "pipeline sizes")
runs = {r["mode"]: r for r in d["runs"]}
check(sorted(runs) == ["explicit", "implicit"], "pipeline: both runs")
for mode, copies in (("implicit", 6), ("explicit", 2)):
    r = runs[mode]
    keys(r, ["mode", "wall_ms", "result_ok", "max_relative_error", "tolerance", "stats",
             "entries_dropped", "entries"], f"pipeline {mode}")
    check(r["result_ok"] is True and r["wall_ms"] > 0, f"pipeline {mode}: result and time")
    check(r["stats"]["copies"] == copies, f"pipeline {mode}: {copies} copies in the stats")
    check(r["stats"]["kernels"] == 3, f"pipeline {mode}: 3 kernels in the stats")
    entries = r["entries"]
    check(r["entries_dropped"] == 0, f"pipeline {mode}: no entry dropped")
    copy_entries = [e for e in entries if e["kind"] == "copy"]
    check(len(copy_entries) == copies, f"pipeline {mode}: {copies} copy entries")
    check(all(e["bytes"] == 1000000 for e in copy_entries), f"pipeline {mode}: each copy moves the array")
    check(all(e["implicit"] is (mode == "implicit") for e in copy_entries), f"pipeline {mode}: implicit flags")
    check(sum(e["direction"] == "H2D" for e in copy_entries) == copies // 2, f"pipeline {mode}: H2D half")
    check(sum(e["kind"] == "kernel" for e in entries) == 3, f"pipeline {mode}: 3 kernel entries")
    check([e["index"] for e in entries] == list(range(1, len(entries) + 1)), f"pipeline {mode}: indices")
    for e in entries:
        keys(e, ["index", "kind", "direction", "implicit", "bytes", "cause", "argument",
                 "host_start_ms", "host_ms", "device_ms"], f"pipeline {mode} entry")
s = d["summary"]
check(s["implicit"]["copies"] == 6 and s["explicit"]["copies"] == 2 and s["copies_saved"] == 4,
      "pipeline summary copies")
check(s["explicit_faster"] == (s["explicit"]["wall_ms"] < s["implicit"]["wall_ms"]), "pipeline explicit_faster")
d = run_json("pipeline", "--kernels", "2", "--size", "64KB", "--mode", "explicit")
check(d["summary"] is None and [r["mode"] for r in d["runs"]] == ["explicit"], "pipeline one mode: no summary")

# the text summary never shows a negative saving
rc, out, _ = run("pipeline", "--kernels", "2", "--size", "64KB")
check(rc == 0 and "fewer copies" in out and not re.search(r"-\d+(\.\d+)?%", out), "pipeline text summary wording")

# bandwidth
d = run_json("bandwidth", "--min", "1MiB", "--max", "4MiB", "--repeat", "2")
keys(d, ["schema", "version", "backend", "device", "repeat", "kinds", "rows"], "bandwidth")
check(d["schema"] == "resident.bandwidth/1" and d["repeat"] == 2, "bandwidth schema")
check([r["bytes"] for r in d["rows"]] == [1 << 20, 4 << 20], "bandwidth sizes")
for r in d["rows"]:
    check(sorted(r["gbytes_per_s"]) == sorted(d["kinds"]) and all(v > 0 for v in r["gbytes_per_s"].values()),
          f"bandwidth row {r['bytes']}: every kind measured")

# bench
d = run_json("bench", "--workload", "sum", "--sizes", "5,5000", "--budget", "5")
keys(d, ["schema", "version", "backend", "device", "budget_ms", "host_blas", "host_blas_threads", "host_threads",
         "workloads"], "bench")
check(isinstance(d["host_blas"], str) and d["host_blas"] and d["host_blas_threads"] >= 1, "bench host BLAS")
check(isinstance(d["host_threads"], int) and d["host_threads"] >= 1, "bench host threads")
check(d["schema"] == "resident.bench/1" and len(d["workloads"]) == 1, "bench schema")
w = d["workloads"][0]
keys(w, ["name", "what", "points", "crossover_elements"], "bench workload")
check(w["name"] == "sum" and [p["elements"] for p in w["points"]] == [5, 5000], "bench points")
for p in w["points"]:
    check(p["host_ms"] > 0 and p["device_ms"] > 0 and p["result_ok"] is True, f"bench point {p}")
    check(abs(p["speedup"] - p["host_ms"] / p["device_ms"]) < 1e-6 * p["speedup"], "bench speedup")

# pipeline --devices all (issue 19): one part per device, one H2D and one collective each
ENV3 = dict(ENV, RESIDENT_SIM_DEVICES="3")
p = subprocess.run([CLI, "pipeline", "--devices", "all", "--size", "3MB", "--kernels", "2", "--json"], env=ENV3,
                   capture_output=True, text=True, timeout=300)
check(p.returncode == 0 and p.stderr == "", f"pipeline --devices all --json: exit {p.returncode}: {p.stderr}")
d = json.loads(p.stdout)
keys(d, ["schema", "version", "backend", "kernels", "elements", "dtype", "device_count", "wall_ms", "sum",
         "reference_sum", "result_ok", "devices", "copies", "bytes"], "pipeline --devices")
check(d["schema"] == "resident.pipeline.devices/1" and d["device_count"] == 3, "pipeline --devices: schema, 3 devices")
check(d["result_ok"] is True and abs(d["sum"] - d["reference_sum"]) <= 1e-4 * abs(d["reference_sum"]),
      "pipeline --devices: the all-reduced sum")
check([x["device"] for x in d["devices"]] == [0, 1, 2], "pipeline --devices: devices in order")
for x in d["devices"]:
    keys(x, ["device", "name", "copies", "bytes", "collectives", "collective_bytes", "stats", "entries"], "device")
    h2d = [e for e in x["entries"] if e["kind"] == "copy" and e["direction"] == "H2D"]
    check(len(h2d) == 1 and h2d[0]["bytes"] == 1000000, f"device {x['device']}: one H2D of its third")
    coll = [e for e in x["entries"] if e["kind"] == "collective"]
    check(x["collectives"] == 1 and len(coll) == 1 and coll[0]["cause"] == "rs_comm_all_reduce",
          f"device {x['device']}: one collective entry")
check(d["copies"] == sum(x["copies"] for x in d["devices"]), "pipeline --devices: copies add up")

# --json=FILE: the file gets the JSON, stdout keeps the report
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "info.json")
    rc, out, _ = run("info", "--json=" + path)
    check(rc == 0 and out.startswith("resident ") and json.load(open(path))["schema"] == "resident.info/1",
          "info --json=FILE")
    # unwritable output paths: exit 2 before any work, nothing on stdout
    for args in (("bench", "--json=" + os.path.join(tmp, "no/such/dir/x.json")),
                 ("bench", "--plot", os.path.join(tmp, "no/such/dir/x.svg")),
                 ("pipeline", "--json=" + os.path.join(tmp, "missing/p.json")),
                 ("bandwidth", "--json=" + os.path.join(tmp, "missing/b.json"))):
        rc, out, err = run(*args)
        check(rc == 2 and out == "" and "cannot write" in err, f"{args}: exit 2 before work ({rc}, {err!r})")

print("failures:", len(failures))
sys.exit(1 if failures else 0)
