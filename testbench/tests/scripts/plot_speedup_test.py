#!/usr/bin/python3
"""Speed-up plots (issue 31's sparsity sweep): a plot's `speedup_over`
draws each metric as its value at the named point of its line over its
own, `reciprocal_x` draws x as 1 / x, and with the speed-up taken over a
point of the x key the ideal line (proportional to x) is drawn beside the
points; a line without its reference point, or a metric that is not a
positive number, is refused; plot.py offers both as options."""
import json
import os

from sweep_testlib import Context, check, check_exit, keep_figures, svg_texts

ctx = Context()
from wsesweep import plotting  # noqa: E402  (Context puts scripts/ on the path)

figures = keep_figures(plotting)

# Cycles against density on two meshes: 1000 dense, 1000 x (0.1 + 0.9 d) sparse on the
# small one (a tenth that does not shrink), half of that on the large one.
densities = [1, 0.5, 0.25, 0.1]
rows = [{"point": f"m{m}d{d}", "status": "ok", "arch.mesh.width": m, "workload.weight_density": d,
         "cycles": 1000 * (0.1 + 0.9 * d) * (32 / m)} for m in (32, 64) for d in densities]
table = {"axes": ["arch.mesh.width", "workload.weight_density"], "metrics": ["cycles"], "rows": rows}
svg = ctx.path("speedup.svg")
plotting.line_plot(table, "workload.weight_density", ["cycles"], [svg], lines="arch.mesh.width",
                   speedup_over={"workload.weight_density": 1}, reciprocal_x=True)
panel = figures[-1].axes[0]
check(panel.get_xlabel() == "1 / weight density", f"x label {panel.get_xlabel()!r}")
check(panel.get_ylabel() == "speed-up of cycles\nover weight density = 1", f"y label {panel.get_ylabel()!r}")
drawn = {line.get_label(): line for line in panel.get_lines()}
for mesh in ("32", "64"):
    line = drawn[mesh]
    check([round(x, 9) for x in line.get_xdata()] == [1, 2, 4, 10], f"mesh {mesh}: x {list(line.get_xdata())}")
    expected = [round(1 / (0.1 + 0.9 * d), 9) for d in (1, 0.5, 0.25, 0.1)]
    check([round(y, 9) for y in line.get_ydata()] == expected,
          f"mesh {mesh}: the speed-ups over its own dense point are {list(line.get_ydata())}, not {expected}")
ideal = drawn.get(plotting.IDEAL_NOTE)
check(ideal is not None, f"no ideal line among {list(drawn)}")
if ideal is not None:
    check(list(ideal.get_xdata()) == list(ideal.get_ydata()) == [1, 2, 4, 10],
          f"the ideal line is not y = x over 1 / density: {list(ideal.get_xdata())}, {list(ideal.get_ydata())}")
check(plotting.IDEAL_NOTE in svg_texts(svg), "the ideal line is not in the legend")

# A line without its reference point, and a metric that is not a positive number.
for broken, expected in [
        ([r for r in rows if not (r["arch.mesh.width"] == 64 and r["workload.weight_density"] == 1)],
         "no finished point with workload.weight_density = 1 for arch.mesh.width = 64"),
        ([dict(r, cycles=0) if r["workload.weight_density"] == 0.5 else r for r in rows],
         "cycles = 0: a speed-up needs positive numbers")]:
    try:
        plotting.line_plot(dict(table, rows=broken), "workload.weight_density", ["cycles"], [ctx.path("x.svg")],
                           lines="arch.mesh.width", speedup_over={"workload.weight_density": 1})
        check(False, f"plotted without complaint: {expected}")
    except plotting.PlotError as e:
        check(expected in str(e), f"the error {e} does not say {expected!r}")

# plot.py's options.
table_path = ctx.path("table", "results.json")
os.makedirs(os.path.dirname(table_path))
with open(table_path, "w", encoding="utf-8") as f:
    json.dump(table, f)
svg = ctx.path("cli.svg")
plotted = ctx.script("plot.py", table_path, "--x", "workload.weight_density", "--y", "cycles", "--lines",
                     "arch.mesh.width", "--speedup-over", "workload.weight_density=1", "--reciprocal-x", "--out", svg)
check_exit(plotted, 0, "plot.py --speedup-over --reciprocal-x")
texts = svg_texts(svg)
check("1 / weight density" in texts and plotting.IDEAL_NOTE in texts, f"plot.py's speed-up plot: {texts}")

print("speed-ups over a point of each line, x as 1 / x, the ideal line beside")
