#!/usr/bin/python3
"""What sweep plots mark beyond the points (issue 32 items 7 and 9): the
wafer-area panel (workload.area.used_fraction) has a dashed line at 1.0
(100 %) labelled "fits on the wafer"; NoC points that were saturated
(workload.saturated, or, in results older than that field,
measured_deliveries_missing > 0) are drawn hollow, with a legend entry
saying their latencies are lower bounds, the others filled. The tables are
made by hand, then once through sweep.py on a tiny mesh driven past
saturation with a short drain (wsesim's workload.saturated)."""
import os
import re

from sweep_testlib import Context, check, check_exit, keep_figures, svg_texts

ctx = Context()
from wsesweep import plotting  # noqa: E402  (Context puts scripts/ on the path)

# The figures line_plot draws, kept for a look at their artists after saving.
figures = keep_figures(plotting)


def markers(panel):
    """(filled, hollow): the (x, y) of the markers drawn in a panel."""
    filled, hollow = set(), set()
    for line in panel.get_lines():
        if line.get_marker() in (None, "None", "none", "", " "):
            continue
        xs, ys = line.get_xdata(), line.get_ydata()
        every = line.get_markevery()
        indices = range(len(xs)) if every is None else every
        points = {(round(float(xs[i]), 9), round(float(ys[i]), 9)) for i in indices}
        (hollow if str(line.get_markerfacecolor()).lower() == "none" else filled).update(points)
    return filled, hollow


# The fits line: on the area panel only, at 100 % of the usable area.
sram = [24576, 49152, 98304, 196608]
table = {"axes": ["arch.pe.sram_bytes"], "metrics": ["cycles", "workload.area.used_fraction"],
         "rows": [{"point": f"p{s}", "status": "ok", "arch.pe.sram_bytes": s, "cycles": 1000,
                   "workload.area.used_fraction": 0.25 * s / 24576} for s in sram]}
svg = ctx.path("area.svg")
plotting.line_plot(table, "arch.pe.sram_bytes", ["cycles", "workload.area.used_fraction"], [svg], logx=True)
cycles_panel, area_panel = figures[-1].axes


def fits_lines(panel):
    return [line for line in panel.get_lines() if "fits on the wafer" in str(line.get_label())]


fits = fits_lines(area_panel)
check(len(fits) == 1, f"the area panel has {len(fits)} fits lines, expected 1")
check(list(fits[0].get_ydata()) == [100, 100] and area_panel.get_ylabel().endswith("(% of usable)"),
      f"the fits line is at {list(fits[0].get_ydata())} on an axis of {area_panel.get_ylabel()!r}, "
      "expected 100 %")
check(fits[0].get_linestyle() == "--", f"the fits line is drawn {fits[0].get_linestyle()!r}, not dashed")
low, high = area_panel.get_ylim()
check(low < 100 < high, f"the fits line at 100 is outside the view {low}..{high}")
check(not fits_lines(cycles_panel), "a fits line on the cycles panel")
check(any("fits on the wafer" in t for t in svg_texts(svg)), "the SVG does not label the fits line")
# Every point below the line, far below (25 % .. 200 %): still in view.
plotting.line_plot({**table, "rows": [dict(r, **{"workload.area.used_fraction": 0.2}) for r in table["rows"]]},
                   "arch.pe.sram_bytes", ["workload.area.used_fraction"], [ctx.path("low.svg")])
check(fits_lines(figures[-1].axes[0]) and figures[-1].axes[0].get_ylim()[1] > 100,
      "with every design fitting, the fits line is not in view")

# Saturated points hollow, the others filled; the legend says what hollow means.
RATES = [0.02, 0.04, 0.06, 0.08]
noc = {"axes": ["workload.pattern", "workload.injection_rate"],
       "metrics": ["workload.latency_avg", "workload.accepted_rate", "workload.saturated"],
       "rows": [{"point": f"{p}{r}", "status": "ok", "workload.pattern": p, "workload.injection_rate": r,
                 "workload.latency_avg": (40 if p == "transpose" else 30) + 1000 * r,
                 "workload.accepted_rate": r / (2 if p == "transpose" else 3),
                 "workload.saturated": p == "transpose" and r >= 0.06}
                for p in ("transpose", "uniform_random") for r in RATES]}
svg = ctx.path("noc.svg")
plotting.line_plot(noc, "workload.injection_rate", ["workload.latency_avg", "workload.accepted_rate"], [svg],
                   lines="workload.pattern")
latency_panel, accepted_panel = figures[-1].axes
filled, hollow = markers(latency_panel)
expected_hollow = {(r, 40 + 1000 * r) for r in (0.06, 0.08)}
check(hollow == {(round(x, 9), round(y, 9)) for x, y in expected_hollow},
      f"hollow markers at {sorted(hollow)}, expected the saturated {sorted(expected_hollow)}")
check(len(filled) == 6 and not filled & hollow, f"filled markers at {sorted(filled)}: expected the 6 others")
filled, hollow = markers(accepted_panel)
check(len(hollow) == 2 and len(filled) == 6, f"the throughput panel: {len(hollow)} hollow, {len(filled)} filled")
texts = svg_texts(svg)
check("hollow: saturated (latencies are lower bounds)" in texts, f"no legend entry for hollow markers: {texts}")

# Nothing saturated: nothing hollow, no note.
calm = {**noc, "rows": [dict(r, **{"workload.saturated": False}) for r in noc["rows"]]}
svg = ctx.path("calm.svg")
plotting.line_plot(calm, "workload.injection_rate", ["workload.latency_avg"], [svg], lines="workload.pattern")
filled, hollow = markers(figures[-1].axes[0])
check(not hollow and len(filled) == 8, f"unsaturated points drawn hollow: {sorted(hollow)}")
check(not any("saturated" in t for t in svg_texts(svg)), "the hollow note without saturated points")

# Results before workload.saturated: measured_deliveries_missing > 0 says
# the same; with neither field, a point counts as not saturated.
older = {"axes": noc["axes"], "metrics": ["workload.latency_avg", "workload.measured_deliveries_missing"],
         "rows": [{k: v for k, v in r.items() if k != "workload.saturated"} for r in noc["rows"]]}
for row, source in zip(older["rows"], noc["rows"]):
    row["workload.measured_deliveries_missing"] = 17 if source["workload.saturated"] else 0
plotting.line_plot(older, "workload.injection_rate", ["workload.latency_avg"], [ctx.path("older.svg")],
                   lines="workload.pattern")
filled, hollow = markers(figures[-1].axes[0])
check(len(hollow) == 2 and len(filled) == 6, f"from measured_deliveries_missing: {len(hollow)} hollow")
bare = {"axes": noc["axes"], "metrics": ["workload.latency_avg"],
        "rows": [{k: v for k, v in r.items() if k != "workload.saturated"} for r in noc["rows"]]}
plotting.line_plot(bare, "workload.injection_rate", ["workload.latency_avg"], [ctx.path("bare.svg")],
                   lines="workload.pattern")
filled, hollow = markers(figures[-1].axes[0])
check(not hollow and len(filled) == 8, "without a saturation field, points are drawn hollow")

# Through sweep.py: a tiny mesh at a low and a far too high load with a short
# drain; the second is saturated.
ctx.tiny_base(measure_cycles=500)
spec = ctx.write("saturating.yaml", """\
base: base.yaml
set:
  workload.drain_cycles: 200
axes:
  workload.injection_rate: [0.05, 0.9]
metrics: [workload.latency_avg, workload.saturated]
plots:
  - name: latency
    x: workload.injection_rate
    y: workload.latency_avg
""")
out = ctx.path("saturating")
check_exit(ctx.sweep(spec, "--out", out), 0, "the saturating sweep")
import json  # noqa: E402

with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
    swept = json.load(f)
rows = {r["workload.injection_rate"]: r for r in swept["rows"]}
check(rows[0.05]["workload.saturated"] is False and rows[0.9]["workload.saturated"] is True,
      f"the sweep did not saturate only at 0.9: {rows}")
check("hollow: saturated (latencies are lower bounds)" in svg_texts(os.path.join(out, "plots", "latency.svg")),
      "sweep.py's plot lacks the hollow note")
# The same plot of the sweep's table here, where its markers can be looked at.
plotting.line_plot(swept, "workload.injection_rate", ["workload.latency_avg"], [ctx.path("swept.svg")])
filled, hollow = markers(figures[-1].axes[0])
check({x for x, _ in hollow} == {0.9} and {x for x, _ in filled} == {0.05},
      f"the sweep's plot: hollow at {sorted(hollow)}, filled at {sorted(filled)}")
print("the fits line is drawn on the area panel; saturated points are hollow, the others filled")
