#!/usr/bin/python3
"""The GNU parallel job list that `sweep.py --emit parallel` writes runs every
point, aggregates into the right table, and plot.py draws a line per value of
one swept key with a third fixed by --where, as PNG and SVG; a zipped axis
moving along with x needs no fixing."""
import os
import shutil
import subprocess

from sweep_testlib import Context, check, check_exit, check_table_matches_points, load_json

RATES, DEPTHS, PATTERNS = [0.05, 0.1, 0.15], [1, 2], ["uniform_random", "transpose"]

ctx = Context()
check(shutil.which("parallel"), "GNU parallel is not installed (Debian: parallel)")
ctx.tiny_base()
spec = ctx.write("parallel.yaml", f"""\
base: base.yaml
axes:
  workload.injection_rate: {RATES}
  arch.fabric.queue_depth: {DEPTHS}
  workload.pattern: {PATTERNS}
metrics: [workload.latency_avg, workload.accepted_rate]
""")
out = ctx.path("out")
check_exit(ctx.sweep(spec, "--out", out, "--emit", "parallel"), 0, "--emit parallel")
with open(os.path.join(out, "parallel.txt")) as jobs:
    lines = jobs.read().splitlines()
plan = load_json(os.path.join(out, "sweep.json"))
check([line.split()[-1] for line in lines] == [p["name"] for p in plan["points"]], f"job list {lines}")
with open(os.path.join(out, "parallel.txt")) as jobs:
    ran = subprocess.run(["parallel", "--jobs", "2"], stdin=jobs, capture_output=True, text=True)
check_exit(ran, 0, "parallel over the job list")
check(ran.stdout.count(": ok") == 12, f"parallel output:\n{ran.stdout}")
check_exit(ctx.sweep(spec, "--out", out, "--aggregate"), 0, "--aggregate")
check_table_matches_points(out, [("ok", r, d, p) for r in RATES for d in DEPTHS for p in PATTERNS])

table = os.path.join(out, "results.json")
png, svg = ctx.path("latency.png"), ctx.path("latency.svg")
plotted = ctx.script("plot.py", table, "--x", "workload.injection_rate", "--y", "workload.latency_avg",
                     "--y", "workload.accepted_rate", "--lines", "arch.fabric.queue_depth",
                     "--where", "workload.pattern=transpose", "--out", png, "--out", svg)
check_exit(plotted, 0, "plot.py")
with open(png, "rb") as f:
    check(f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG")
with open(svg) as f:
    text = f.read()
for label in ("arch.fabric.queue_depth", "workload.latency_avg", "workload.accepted_rate",
              "workload.pattern=transpose"):
    check(label in text, f"the SVG lacks the text {label}")

unfixed = ctx.script("plot.py", table, "--x", "workload.injection_rate", "--y", "workload.latency_avg",
                     "--lines", "arch.fabric.queue_depth", "--out", png)
check_exit(unfixed, 2, "plot with a third key left varying")
check("workload.pattern also vary" in unfixed.stderr, f"unclear message: {unfixed.stderr}")

# A key that moves along with x (zipped axes, e.g. a square mesh's width and
# height) does not need fixing; plotted against the other, it draws.
from wsesweep import plotting  # noqa: E402

zipped = {"axes": ["arch.mesh.width", "arch.mesh.height"], "metrics": ["cycles"],
          "rows": [{"status": "ok", "arch.mesh.width": w, "arch.mesh.height": w, "cycles": 1000 // w}
                   for w in (8, 16, 32)]}
check(plotting.line_plot(zipped, "arch.mesh.width", ["cycles"], [ctx.path("zip.png")]) == 0, "zipped plot")
check(os.path.getsize(ctx.path("zip.png")) > 1000, "the zipped plot is empty")
print("GNU parallel ran all 12 points; table and PNG/SVG plot are right")
