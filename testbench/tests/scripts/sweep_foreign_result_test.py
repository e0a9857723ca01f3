#!/usr/bin/python3
"""A point is done only when its result.json is the result of that point:
a file holding `{"workload": {}}`, a valid result copied from another point,
one copied from the same point of a sweep with another base, and a wsesim
result the runner never stamped all make the point run again; the point's
own stamped result is kept. Every rerun point ends up with its own result."""
import json
import os
import shutil

from sweep_testlib import Context, check, check_exit, check_table_matches_points, load_json

DEPTHS = [2, 4, 8, 16]

ctx = Context()
ctx.tiny_base()
spec = ctx.write("foreign.yaml", f"""\
base: base.yaml
axes:
  arch.fabric.queue_depth: {DEPTHS}
metrics: [workload.latency_avg, cycles]
""")
out = ctx.path("out")


def result_path(out_dir, depth):
    return os.path.join(out_dir, "points", f"arch.fabric.queue_depth={depth}", "result.json")


check_exit(ctx.sweep(spec, "--out", out, "--jobs", "2"), 0, "first sweep")
for depth in DEPTHS:
    stamp = load_json(result_path(out, depth))["sweep_point"]
    check(stamp["name"] == f"arch.fabric.queue_depth={depth}" and stamp["digest"].startswith("sha256:"),
          f"depth {depth}: stamp {stamp}")
    check(not os.path.exists(os.path.join(os.path.dirname(result_path(out, depth)), "wsesim.json")),
          f"depth {depth}: the unstamped result was left behind")

# The same spec on another base (longer measurement): same point names, other results.
other_base = ctx.path("other")
os.makedirs(other_base)
with open(ctx.path("base.yaml"), encoding="utf-8") as f:
    longer = f.read().replace("measure_cycles: 2000", "measure_cycles: 3000")
with open(os.path.join(other_base, "base.yaml"), "w", encoding="utf-8") as f:
    f.write(longer)
other_spec = os.path.join(other_base, "foreign.yaml")
shutil.copy(spec, other_spec)
other_out = os.path.join(other_base, "out")
check_exit(ctx.sweep(other_spec, "--out", other_out, "--jobs", "2"), 0, "sweep on the other base")

# 2: an empty workload section. 4: a valid result of depth 16. 8: depth 8 of
# the other sweep. 16: what wsesim itself wrote for depth 16, unstamped.
with open(result_path(out, 2), "w", encoding="utf-8") as f:
    f.write('{"workload": {}}')
shutil.copy(result_path(out, 16), result_path(out, 4))
shutil.copy(result_path(other_out, 8), result_path(out, 8))
unstamped = load_json(result_path(out, 16))
del unstamped["sweep_point"]
with open(result_path(out, 16), "w", encoding="utf-8") as f:
    json.dump(unstamped, f)

resumed = ctx.sweep(spec, "--out", out, "--jobs", "2")
check_exit(resumed, 0, "resumed sweep")
check("4 points, 0 done earlier, 4 to run" in resumed.stdout,
      f"a result not stamped for its own point counted as done:\n{resumed.stdout}")
for depth in DEPTHS:
    result = load_json(result_path(out, depth))
    check(result["config"]["arch"]["fabric"]["queue_depth"] == depth, f"depth {depth}: {result['config']}")
    check(result["config"]["workload"]["measure_cycles"] == 2000, f"depth {depth}: measured on the other base")

# Nothing foreign left: a rerun keeps all four, and run_point.py agrees.
kept = {d: os.stat(result_path(out, d)).st_mtime_ns for d in DEPTHS}
again = ctx.sweep(spec, "--out", out, "--jobs", "2")
check_exit(again, 0, "second resume")
check("4 points, 4 done earlier, 0 to run" in again.stdout, f"own results were not kept:\n{again.stdout}")
point = ctx.script("run_point.py", out, "arch.fabric.queue_depth=4")
check_exit(point, 0, "run_point.py on a done point")
check("skipped" in point.stdout, f"run_point.py reran a done point: {point.stdout}")
check(all(os.stat(result_path(out, d)).st_mtime_ns == kept[d] for d in DEPTHS), "a done point ran again")
check_table_matches_points(out, [("ok", d) for d in DEPTHS])
print("empty, copied, other-base and unstamped results were rerun; stamped ones kept")
