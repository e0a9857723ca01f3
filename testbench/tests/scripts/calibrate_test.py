#!/usr/bin/python3
"""scripts/calibrate.py recovers known timing: measurements made by the
model itself at chosen values of the fitted keys are fitted back to those
values with no error, the overlay, table and plot are written, and bad
input is refused with exit status 2 and a message naming what is wrong."""
import csv
import os

import yaml

from sweep_testlib import Context, check, check_exit

ctx = Context()
from wsecalib import data, model  # noqa: E402 (Context puts scripts/ on the path)
TRUE = {"arch.pe.cycles_per_element.fp32.fmac": "2.5", "arch.firmware.summa_loop_cycles": "7",
        "arch.fabric.route_switch_cycles": "30"}
FIXED = ["arch.pe.task_start_cycles=2"]

# "Measurements": the model at TRUE, on SUMMA fp32 grids of 2 x 2 and 3 x 3.
points = [data.GemmPoint("summa", "fp32", p, tile, p * tile, 1.0) for p in (2, 3) for tile in (2, 4, 8)]
truth = model.Model(ctx.wsesim, "tiny", ctx.path("truth"), 2, FIXED).simulate([(p, TRUE) for p in points])
with open(ctx.path("measured.csv"), "w", encoding="utf-8") as f:
    f.write("# made by the model at known values\np,tile,n,hw_cycles\n")
    for p, run in zip(points, truth):
        f.write(f"{p.p},{p.tile},{p.n},{run['simulated']}\n")

out = ctx.path("fit")
run = ctx.script("calibrate.py", ctx.path("measured.csv"), "--preset", "tiny", "--set", FIXED[0], "--fit-on",
                 "p == 2", "--out", out, "--wsesim", ctx.wsesim, "--jobs", "2")
check_exit(run, 0, "calibrate.py on the model's own measurements")
with open(os.path.join(out, "fitted_preset.yaml"), encoding="utf-8") as f:
    overlay = yaml.safe_load(f)
check(overlay["base"] == "tiny", overlay)
check(abs(float(overlay["pe"]["cycles_per_element"]["fp32"]["fmac"]) - 2.5) < 1e-3, overlay)
check(int(overlay["firmware"]["summa_loop_cycles"]) == 7, overlay)
check(int(overlay["fabric"]["route_switch_cycles"]) == 30, overlay)
with open(os.path.join(out, "report.csv"), encoding="utf-8") as f:
    rows = list(csv.DictReader(f))
check(len(rows) == 6, rows)
check(all(abs(float(r["error"])) < 1e-9 for r in rows), rows)
check(sorted(r["role"] for r in rows) == ["fitted"] * 3 + ["predicted"] * 3, rows)
check(os.path.getsize(os.path.join(out, "measured_vs_simulated.png")) > 1000, "empty plot")
check("MAPE (predicted points): 0.0%" in run.stdout, run.stdout)

# --update-doc replaces the table between the markers, and only there.
doc = ctx.write("doc.md", "before\n<!-- calibration-table:begin (scripts/calibrate.py --update-doc) -->\nold\n"
                          "<!-- calibration-table:end -->\nafter\n")
rerun = ctx.script("calibrate.py", ctx.path("measured.csv"), "--preset", "tiny", "--set", FIXED[0], "--fit-on",
                   "p == 2", "--out", out, "--wsesim", ctx.wsesim, "--update-doc", doc)
check_exit(rerun, 0, "a rerun from the cache, updating a doc")
with open(doc, encoding="utf-8") as f:
    text = f.read()
check(text.startswith("before\n") and text.endswith("after\n") and "old" not in text and "| summa_fp32_p2_t2 |" in text,
      text)


def refused(csv_text, *args, says):
    path = ctx.write("bad.csv", csv_text)
    process = ctx.script("calibrate.py", path, "--out", ctx.path("bad"), "--wsesim", ctx.wsesim, *args)
    check_exit(process, 2, says)
    check(says in process.stderr, f"expected {says!r} in: {process.stderr}")


refused("p,tile,hw_cycles\n2,2,100\n", says="header lacks column(s) n")
refused("p,tile,n,hw_cycles\n2,2,5,100\n", says="n=5 is not p x tile = 4")
refused("p,tile,n,hw_cycles\n2,2,4,abc\n", says="bad.csv:2")
refused("p,tile,n,hw_cycles\n2,2,4,100\n2,4,8,200\n2,8,16,300\n", "--fit-on", "p == 5", says="selects none")
refused("p,tile,n,hw_cycles\n2,2,4,100\n2,4,8,200\n2,8,16,300\n", "--fit-on", "__import__('os')",
        says="unknown name(s) __import__")
refused("p,tile,n,hw_cycles\n2,2,4,100\n", says="3 keys to fit need at least as many points")
bad_doc = ctx.write("plain.md", "no markers\n")
process = ctx.script("calibrate.py", ctx.path("measured.csv"), "--preset", "tiny", "--set", FIXED[0], "--out", out,
                     "--wsesim", ctx.wsesim, "--update-doc", bad_doc)
check_exit(process, 2, "a doc without markers")
check("no '<!-- calibration-table:begin" in process.stderr, process.stderr)
print("ok")
