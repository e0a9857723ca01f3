#!/usr/bin/python3
"""Failed points are recorded (exit status, stderr tail, command) without
stopping the others, a rerun retries them, a point whose cause was fixed then
succeeds (the preset added to fix it reruns the good point too: the presets
changed), and a folder is never reused for a different base config."""
import os
import shutil

from sweep_testlib import Context, check, check_exit, check_table_matches_points, load_json

ctx = Context()
ctx.tiny_base()
spec = ctx.write("failures.yaml", """\
base: base.yaml
axes:
  arch.fabric.queue_depth: [0, 2]     # 0 is out of range: wsesim exits 2
  arch.preset: [tiny, tiny16]         # tiny16 does not exist until the test writes it
metrics: [workload.latency_avg, cycles]
""")
out = ctx.path("out")
presets = ctx.path("presets")
shutil.copytree(os.environ["WSESIM_PRESET_DIR"], presets)
env = dict(os.environ, WSESIM_PRESET_DIR=presets)


def point(depth, preset):
    return os.path.join(out, "points", f"arch.fabric.queue_depth={depth},arch.preset={preset}")


first = ctx.sweep(spec, "--out", out, "--jobs", "2", env=env)
check_exit(first, 3, "sweep with failing points")
check("3 point(s) failed" in first.stderr, f"no failure summary:\n{first.stderr}")
check_table_matches_points(out, [("failed", 0, "tiny"), ("failed", 0, "tiny16"),
                                 ("ok", 2, "tiny"), ("failed", 2, "tiny16")])

# The zoo wsesim lists here: the run file asks for no model, but a point
# runs with the zoo the plan digested all the same.
model_dir = load_json(os.path.join(out, "sweep.json"))["inputs"]["model_dir"]
for depth, preset, cause in [(0, "tiny", "arch.fabric.queue_depth"), (0, "tiny16", "tiny16"),
                             (2, "tiny16", "tiny16")]:
    record = load_json(os.path.join(point(depth, preset), "error.json"))
    check(record["exit_status"] == 2 and record["signal"] is None, f"{depth},{preset}: {record}")
    check(any(cause in line for line in record["stderr_tail"]), f"{depth},{preset}: stderr tail {record}")
    check(f"arch.fabric.queue_depth={depth}" in record["command"] and f"arch.preset={preset}" in record["command"],
          f"{depth},{preset}: command {record['command']}")
    check(record["environment"] == {"WSESIM_PRESET_DIR": presets, "WSESIM_MODEL_DIR": model_dir},
          f"{depth},{preset}: environment {record}")
    check(record["values"] == {"arch.fabric.queue_depth": depth, "arch.preset": preset}, f"values {record}")
    check(not os.path.exists(os.path.join(point(depth, preset), "result.json")), f"{depth},{preset}: a result")
check(not os.path.exists(os.path.join(point(2, "tiny"), "error.json")), "the good point has an error record")

# Fix one cause (the missing preset); the rerun retries all three failures,
# and the good point too: it ran with other presets (docs/exploration.md).
with open(os.path.join(presets, "tiny16.yaml"), "w") as f:
    f.write("base: wse2\nmesh:\n  width: 16\n  height: 16\n")
good = os.stat(os.path.join(point(2, "tiny"), "result.json"))
still_bad = os.stat(os.path.join(point(0, "tiny"), "error.json"))
second = ctx.sweep(spec, "--out", out, "--jobs", "2", env=env)
check_exit(second, 3, "rerun with one cause fixed")
check(f"sweep: the presets in {presets} changed since 1 point(s) were run: they run again\n"
      "sweep: 4 points, 0 done earlier, 4 to run" in second.stdout, f"rerun did not retry every point:\n{second.stdout}")
check(os.stat(os.path.join(point(2, "tiny"), "result.json")).st_mtime_ns != good.st_mtime_ns,
      "the good point was not run again with the new presets")
check(os.stat(os.path.join(point(0, "tiny"), "error.json")).st_mtime_ns != still_bad.st_mtime_ns,
      "the failed point was not retried")
check(not os.path.exists(os.path.join(point(2, "tiny16"), "error.json")), "fixed point keeps its error.json")
fixed = load_json(os.path.join(point(2, "tiny16"), "result.json"))
check(fixed["config"]["arch"]["mesh"]["width"] == 16, "the fixed point did not run on the 16 x 16 preset")
check_table_matches_points(out, [("failed", 0, "tiny"), ("failed", 0, "tiny16"),
                                 ("ok", 2, "tiny"), ("ok", 2, "tiny16")])

# The same folder with another base config would mix two experiments.
ctx.tiny_base(measure_cycles=3000)
changed = ctx.sweep(spec, "--out", out, env=env)
check_exit(changed, 2, "sweep into a folder made with another base config")
check("different base config" in changed.stderr, f"unclear refusal: {changed.stderr}")
print("failed points recorded, the rest ran, the rerun retried them, a changed base is refused")
