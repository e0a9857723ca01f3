#!/usr/bin/python3
"""Sweep plots are labelled for a reader (issue 32 item 9): axes by name and
unit with the values scaled (bytes in KiB with a tick at each swept value,
joules in uJ, fractions in %), unknown keys by the key itself; every plot
has a title: the spec's plot `title`, plot.py --title, or "Y vs X" with the
sweep's name and the fixed --where values; the raw keys stay in the file's
metadata."""
import os
import re

from sweep_testlib import Context, check, check_exit, keep_figures, svg_texts

ctx = Context()
from wsesweep import plotting  # noqa: E402  (Context puts scripts/ on the path)

# The figures line_plot draws, kept for a look at their artists after saving.
figures = keep_figures(plotting)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# The table of names and units, and the scaling of the values.
for key, values, label, divisor in [
        ("arch.pe.sram_bytes", [4096, 98304], "SRAM per PE (KiB)", 1024),
        ("host.peak_rss_bytes", [18939904], "host peak memory (MiB)", 1024 ** 2),
        ("workload.sram_high_water_bytes", [460], "SRAM high-water, busiest PE (B)", 1),
        ("workload.energy.per_sample_j", [2.7e-6, 5.6e-6], "energy per sample (\u00b5J)", 1e-6),
        ("workload.energy.per_sample_j", [0.02], "energy per sample (mJ)", 1e-3),
        ("workload.utilisation", [0.22, 0.9], "utilisation (% of FMAC peak)", 0.01),
        ("workload.area.used_fraction", [0.98, 1.23], "wafer area used (% of usable)", 0.01),
        ("workload.injection_rate", [0.01, 0.12], "offered load (wavelets/PE/cycle)", 1),
        ("workload.latency_p99", [101, 2400], "p99 packet latency (cycles)", 1),
        ("cycles", [1060], "cycles", 1),
        ("cycles", [350000], "cycles (thousands)", 1000),
        ("workload.step_seconds", [2e-5], "training step time (\u00b5s)", 1e-6),
        ("workload.power.average_w", [47.0], "average power (W)", 1),
        # Suffix rules for keys the table does not name.
        ("workload.energy.per_system_by_part_j.ops", [1e-6], "workload.energy.per_system_by_part_j.ops (\u00b5J)",
         1e-6),
        ("workload.memoryx.exposed_fetch_seconds", [8.5e-6], "workload.memoryx.exposed_fetch (\u00b5s)", 1e-6),
        ("workload.link_utilisation.mean", [0.1], "mean mesh link load (% of cycles)", 0.01),
        ("workload.ramp_utilisation.p99", [0.0124], "workload.ramp_utilisation.p99 (%)", 0.01),
        # Unknown: the key itself, values as they are.
        ("workload.colors_used", [5], "workload.colors_used", 1)]:
    got = plotting.axis_label(key, values)
    check(got[0] == label and abs(got[1] - divisor) <= 1e-12 * divisor,
          f"axis_label({key}, {values}) = {got}, expected ({label!r}, {divisor})")
# Counts in thousands on a linear axis, as they are on a log one (100, 1000, 10000).
check(plotting.axis_label("workload.latency_p99", [30, 25000]) == ("p99 packet latency (k cycles)", 1000),
      f"linear: {plotting.axis_label('workload.latency_p99', [30, 25000])}")
check(plotting.axis_label("workload.latency_p99", [30, 25000], log=True) == ("p99 packet latency (cycles)", 1),
      f"log: {plotting.axis_label('workload.latency_p99', [30, 25000], log=True)}")

# A log x axis of bytes: KiB, a tick at each swept value, no 10^4 ticks; the
# energy drawn in uJ, the title made from the names.
sram = [24576, 49152, 98304, 196608]
table = {"axes": ["arch.pe.sram_bytes"], "metrics": ["cycles", "workload.energy.per_sample_j"],
         "rows": [{"point": f"p{s}", "status": "ok", "arch.pe.sram_bytes": s, "cycles": 9_000_000 // s,
                   "workload.energy.per_sample_j": 1e-6 * s / 24576} for s in sram]}
svg = ctx.path("sram.svg")
plotting.line_plot(table, "arch.pe.sram_bytes", ["cycles", "workload.energy.per_sample_j"],
                   [svg, ctx.path("sram.png")], logx=True, sweep="sram_demo")
figure = figures[-1]
cycles_panel, energy_panel = figure.axes
check(energy_panel.get_xlabel() == "SRAM per PE (KiB)", f"x label {energy_panel.get_xlabel()!r}")
check(energy_panel.get_ylabel() == "energy per sample (\u00b5J)", f"y label {energy_panel.get_ylabel()!r}")
check(cycles_panel.get_ylabel() == "cycles", f"y label {cycles_panel.get_ylabel()!r}")
drawn = energy_panel.get_lines()[0]
check(list(drawn.get_xdata()) == [24, 48, 96, 192], f"x drawn in bytes, not KiB: {list(drawn.get_xdata())}")
check([round(v, 9) for v in drawn.get_ydata()] == [1, 2, 4, 8], f"energy not in uJ: {list(drawn.get_ydata())}")
ticks = [t.get_text() for t in energy_panel.get_xticklabels() if t.get_text()]
check(ticks == ["24", "48", "96", "192"], f"the SRAM ticks are {ticks}, expected one per swept value in KiB")
texts = svg_texts(svg)
for text in ("SRAM per PE (KiB)", "energy per sample (\u00b5J)", "24", "192",
             "cycles, energy per sample vs SRAM per PE", "sweep sram_demo"):
    check(text in texts, f"the SVG lacks the text {text!r} (has {texts})")
check(not any("10" in t and "^" in t for t in texts), f"power-of-ten ticks in {texts}")
raw = read(svg)
check("<dc:description>x: arch.pe.sram_bytes; y: cycles, workload.energy.per_sample_j; sweep: sram_demo"
      in raw, "the raw keys are not in the SVG's metadata")
check("arch.pe.sram_bytes" not in texts and not any("workload.energy" in t for t in texts),
      f"a raw key is drawn as a label: {texts}")

# Titles: an explicit one, and the generated one with the fixed values.
noc = {"axes": ["workload.pattern", "workload.injection_rate"], "metrics": ["workload.latency_avg"],
       "rows": [{"point": f"{p}{r}", "status": "ok", "workload.pattern": p, "workload.injection_rate": r,
                 "workload.latency_avg": 40 + 100 * r} for p in ("transpose", "uniform_random")
                for r in (0.02, 0.04)]}
svg = ctx.path("titled.svg")
plotting.line_plot(noc, "workload.injection_rate", ["workload.latency_avg"], [svg],
                   where={"workload.pattern": "transpose"}, title="Latency under transpose traffic")
texts = svg_texts(svg)
check("Latency under transpose traffic" in texts, f"the explicit title is not drawn: {texts}")
check("traffic pattern = transpose" in texts, f"the fixed value is not under the title: {texts}")
svg = ctx.path("generated.svg")
plotting.line_plot(noc, "workload.injection_rate", ["workload.latency_avg"], [svg], lines="workload.pattern")
texts = svg_texts(svg)
check("mean packet latency vs offered load" in texts, f"no generated title: {texts}")
check("traffic pattern" in texts, f"the legend is not titled by the line key's name: {texts}")
check("<title>mean packet latency vs offered load</title>" in read(svg), "the SVG's own title is not the heading")

# plot.py --title, and without it the generated title over the sweep's name
# (its plan, sweep.json, beside the table).
table_path = ctx.path("table", "results.json")
os.makedirs(os.path.dirname(table_path))
with open(table_path, "w", encoding="utf-8") as f:
    import json
    json.dump(noc, f)
svg = ctx.path("cli.svg")
plotted = ctx.script("plot.py", table_path, "--x", "workload.injection_rate", "--y", "workload.latency_avg",
                     "--where", "workload.pattern=uniform_random", "--title", "Offered load sweep", "--out", svg)
check_exit(plotted, 0, "plot.py --title")
texts = svg_texts(svg)
check("Offered load sweep" in texts, f"plot.py --title is not drawn: {texts}")
with open(ctx.path("table", "sweep.json"), "w", encoding="utf-8") as f:
    json.dump({"spec": "/somewhere/my_noc_sweep.yaml"}, f)
plotted = ctx.script("plot.py", table_path, "--x", "workload.injection_rate", "--y", "workload.latency_avg",
                     "--where", "workload.pattern=uniform_random", "--out", svg)
check_exit(plotted, 0, "plot.py without --title")
texts = svg_texts(svg)
check("mean packet latency vs offered load" in texts, f"plot.py: no generated title: {texts}")
check("sweep my_noc_sweep; traffic pattern = uniform_random" in texts, f"plot.py: no sweep name: {texts}")

# A spec's plot `title`, through sweep.py (two tiny NoC points); a title
# that is not text is refused before anything runs.
ctx.tiny_base(measure_cycles=300)
spec = ctx.write("titled.yaml", """\
base: base.yaml
axes:
  workload.injection_rate: [0.02, 0.04]
metrics: [workload.latency_avg, workload.accepted_rate]
plots:
  - name: latency
    title: Zero-load latency of the tiny mesh
    x: workload.injection_rate
    y: workload.latency_avg
  - name: throughput
    x: workload.injection_rate
    y: workload.accepted_rate
""")
out = ctx.path("titled")
check_exit(ctx.sweep(spec, "--out", out), 0, "sweep with a titled plot")
texts = svg_texts(os.path.join(out, "plots", "latency.svg"))
check("Zero-load latency of the tiny mesh" in texts, f"the spec's title is not drawn: {texts}")
check("sweep titled" in texts, f"the sweep's name is not under the title: {texts}")
texts = svg_texts(os.path.join(out, "plots", "throughput.svg"))
check("accepted throughput vs offered load" in texts, f"no generated title for an untitled plot: {texts}")
bad = ctx.write("bad.yaml", read(spec).replace("title: Zero-load latency of the tiny mesh", "title: [1, 2]"))
refused = ctx.sweep(bad, "--out", ctx.path("bad"))
check(refused.returncode != 0 and "title is the plot's heading" in refused.stderr,
      f"a list as title was not refused: {refused.returncode}\n{refused.stderr}")
print("axes carry names and units with scaled values; every plot has a title")
