#!/usr/bin/env python3
"""The page of `resident pipeline --html` in a real browser (headless Chromium).

Runs the pipeline on the backend named by RESIDENT_BACKEND (skipped, exit 77, when that
backend has no device or no Chromium is installed: scripts/deps.sh --browser installs
one), with --json for the ledger's own counts, --html for the page and --trace for the
trace of the same run. Then Chromium loads the page and dumps the DOM the script drew:
  - the browser logs no console message at all (errors included) and the script ran
    to its end (it marks <body data-rendered>);
  - in each run's timeline (svg[data-run=implicit|explicit]) the drawn copy bars
    (rect.copy) are as many as the ledger's copies of that run, implicit and explicit
    ones as many as the ledger's;
  - the page fetches nothing (no src= or href= to anything but itself);
  - the trace of the same run holds as many copy events as both runs' copies;
  - a screenshot is written next to the page (an artifact of the test).
usage: check_timeline_page.py RESIDENT_CLI OUTDIR
       check_timeline_page.py --page PAGE.html --report REPORT.json [--trace TRACE.json]
The second form checks a page made elsewhere (the GPU machine's, from
scripts/gpu-trace-check.sh: pipeline-gpu.html and pipeline-gpu.json) in this machine's
browser; the screenshot goes next to the page's name in the current folder."""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Bars(html.parser.HTMLParser):
    """Counts rect elements by class inside each svg[data-run]."""

    def __init__(self):
        super().__init__()
        self.run = None
        self.counts = {}
        self.rendered = None
        self.external = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "data-run" in a:
            self.run = a["data-run"]
            self.counts[self.run] = {"copy": 0, "implicit": 0, "explicit": 0, "bars": 0}
        if tag == "body":
            self.rendered = a.get("data-rendered")
        for k in ("src", "href"):
            if k in a and a[k] and not a[k].startswith("#"):
                self.external.append(f"<{tag} {k}={a[k]}>")
        if tag == "rect" and self.run:
            cls = (a.get("class") or "").split()
            if "bar" in cls:
                c = self.counts[self.run]
                c["bars"] += 1
                if "copy" in cls:
                    c["copy"] += 1
                    c["implicit"] += "implicit" in cls
                    c["explicit"] += "explicit" in cls

    def handle_endtag(self, tag):
        if tag == "svg":
            self.run = None


def main():
    browser = chromium()
    if not browser:
        print("skipped: no Chromium (scripts/deps.sh --browser installs it)")
        return 77
    if sys.argv[1] == "--page":
        args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
        page, report, trace = args["--page"], args["--report"], args.get("--trace")
        shot = os.path.splitext(os.path.basename(page))[0] + ".png"
    else:
        cli, out = sys.argv[1], sys.argv[2]
        backend = os.environ.get("RESIDENT_BACKEND", "sim")
        info = json.loads(subprocess.run([cli, "info", "--json"], capture_output=True, text=True, timeout=120).stdout)
        if not any(b["name"] == backend and b["available"] for b in info["backends"]):
            print(f"skipped: no {backend} device")
            return 77
        os.makedirs(out, exist_ok=True)
        page = os.path.join(out, f"timeline-{backend}.html")
        trace = os.path.join(out, f"timeline-{backend}.trace.json")
        report = os.path.join(out, f"timeline-{backend}.json")
        shot = os.path.join(out, f"timeline-{backend}.png")
        run = subprocess.run([cli, "pipeline", "--backend", backend, "--size", "4MB", "--kernels", "4",
                              "--html", page, "--trace", trace, f"--json={report}"],
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            print(f"resident pipeline failed ({run.returncode}): {run.stderr}")
            return 1
    with open(report) as f:
        runs = {r["mode"]: r["stats"] for r in json.load(f)["runs"]}
    bad = []
    with tempfile.TemporaryDirectory() as profile:
        base = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--window-size=1400,760"]
        dom = subprocess.run(base + ["--dump-dom", "file://" + os.path.abspath(page)],
                             capture_output=True, text=True, timeout=120)
        consoles = [l for l in dom.stderr.splitlines() if ":CONSOLE" in l]
        for line in consoles:
            bad.append(f"console: {line}")
        subprocess.run(base + [f"--screenshot={shot}", "file://" + os.path.abspath(page)],
                       capture_output=True, text=True, timeout=120)
    p = Bars()
    p.feed(dom.stdout)
    if p.rendered is None:
        bad.append("the page's script did not finish (no data-rendered on body)")
    if p.external:
        bad.append(f"the page refers to other resources: {p.external}")
    for mode, stats in runs.items():
        got = p.counts.get(mode)
        if got is None:
            bad.append(f"no timeline for the {mode} run")
            continue
        for key, want in (("copy", stats["copies"]), ("implicit", stats["copies_implicit"]),
                          ("explicit", stats["copies_explicit"])):
            if got[key] != want:
                bad.append(f"{mode}: {got[key]} {key} bars drawn, the ledger has {want}")
        print(f"{mode}: {got['copy']} copy bars ({got['implicit']} implicit) of {got['bars']} bars; "
              f"ledger: {stats['copies']} copies ({stats['copies_implicit']} implicit)")
    if trace:
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        copies = sum(1 for e in events if e.get("ph") == "X" and e.get("cat", "").startswith("copy."))
        if copies != sum(s["copies"] for s in runs.values()):
            bad.append(f"the trace has {copies} copy events, the ledger {sum(s['copies'] for s in runs.values())}")
    if not os.path.exists(shot) or os.path.getsize(shot) < 1000:
        bad.append(f"no screenshot at {shot}")
    else:
        print(f"screenshot: {shot}")
    for b in bad:
        print(b)
    print("OK" if not bad else "BAD")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
