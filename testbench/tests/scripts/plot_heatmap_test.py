#!/usr/bin/python3
"""A run's wafer map (wsesim run --map) drawn by plot.py --map as PNG and
SVG heatmaps of PE busy fraction, SRAM, PE energy and link load, over the whole mesh
and a region; bad metrics, regions and files are refused with exit 2."""
import os

from sweep_testlib import Context, check, check_exit, load_json

ctx = Context()
config = ctx.write("gemm.yaml", """\
arch:
  preset: tiny
workload:
  type: gemm
  m: 40
  k: 24
  n: 16
""")
wafer_map = ctx.path("map.json")
import subprocess  # noqa: E402

run = subprocess.run([ctx.wsesim, "run", config, "--map", wafer_map], capture_output=True, text=True)
check(run.returncode == 0, f"wsesim run --map failed: {run.stderr}")
check(load_json(wafer_map)["format"] == "wsesim-wafer-map-1", "map format")

for metric, label in [("pe_busy", "PE busy"), ("sram", "SRAM high-water"), ("energy", "PE energy"),
                      ("link_load", "busiest mesh link"),
                      ("link_load:S", "link S load")]:
    png, svg = ctx.path(f"{metric}.png"), ctx.path(f"{metric}.svg")
    check_exit(ctx.script("plot.py", "--map", wafer_map, "--metric", metric, "--out", png, "--out", svg), 0, metric)
    check(os.path.getsize(png) > 1000, f"{png} is empty")
    with open(svg, encoding="utf-8") as f:
        check(label in f.read(), f"{svg} lacks the label {label!r}")

check_exit(ctx.script("plot.py", "--map", wafer_map, "--region", "2,0,5,3", "--out", ctx.path("r.png")), 0, "region")
refused = ctx.script("plot.py", "--map", wafer_map, "--region", "2,0,9,3", "--out", ctx.path("bad.png"))
check_exit(refused, 2, "region outside the mesh")
check("not inside the 8 x 8 mesh" in refused.stderr, refused.stderr)
check_exit(ctx.script("plot.py", "--map", config, "--out", ctx.path("bad.png")), 2, "not a map")
check(not os.path.exists(ctx.path("bad.png")), "a refused plot left a file")
print("ok")
