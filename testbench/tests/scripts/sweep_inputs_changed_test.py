#!/usr/bin/python3
"""A finished sweep resumed after its inputs beyond the spec changed: with
the same presets (even moved to another folder) nothing runs again; with one
preset value edited every point runs again against the new value, the sweep
says why in one line, and the table shows the new value's effect; with
another wsesim binary likewise. A job emitted for a scheduler runs with the
presets the plan digested, whatever its own environment says."""
import os
import shutil

from sweep_testlib import (Context, check, check_copy_reruns_nothing, check_exit, check_inputs_recorded,
                           check_resume, check_table_matches_points, load_json, rows_by_value)

AXIS, DEPTHS = "arch.fabric.queue_depth", [2, 4]
METRICS = ["config.arch.mesh.width", "workload.latency_avg", "cycles"]

ctx = Context()
ctx.tiny_base()
spec = ctx.write("inputs.yaml", f"""\
base: base.yaml
axes:
  {AXIS}: {DEPTHS}
metrics: {METRICS}
""")
out = ctx.path("out")
# Copies of the repository's presets, never the repository's own.
presets = ctx.path("presets")
shutil.copytree(os.environ["WSESIM_PRESET_DIR"], presets)


def sweep_with(preset_dir, *args):
    return ctx.sweep(spec, "--out", out, "--jobs", "2", *args,
                     env={**os.environ, "WSESIM_PRESET_DIR": preset_dir})


check_resume(sweep_with(presets), len(DEPTHS), 0, "first sweep")
before = rows_by_value(out, AXIS)
check(all(row["config.arch.mesh.width"] == 8 for row in before.values()), f"tiny is not 8 wide: {before}")
check_inputs_recorded(out, f"{AXIS}=2", "preset_dir", presets)
moved = check_copy_reruns_nothing(sweep_with, presets, out, AXIS, DEPTHS)

# One value edited: the tiny preset 4 PEs wide instead of 8.
tiny = os.path.join(moved, "tiny.yaml")
with open(tiny, encoding="utf-8") as f:
    text = f.read()
check("  width: 8  #" in text, f"{tiny} has no 'width: 8' to edit")
with open(tiny, "w", encoding="utf-8") as f:
    f.write(text.replace("  width: 8  #", "  width: 4  #"))
edited = sweep_with(moved)
check_resume(edited, len(DEPTHS), 0, "resume with an edited preset")
announcement = f"sweep: the presets in {moved} changed since {len(DEPTHS)} point(s) were run: they run again\n"
check(announcement in edited.stdout, f"expected the line '{announcement.strip()}':\n{edited.stdout}")
after = rows_by_value(out, AXIS)
for depth in DEPTHS:
    check(after[depth]["status"] == "ok" and after[depth]["config.arch.mesh.width"] == 4,
          f"depth {depth} did not run on the edited preset: {after[depth]}")
    # Uniform random traffic on a narrower mesh travels fewer hops.
    check(after[depth]["workload.latency_avg"] < before[depth]["workload.latency_avg"],
          f"depth {depth}: latency {after[depth]['workload.latency_avg']} on 4 x 8, "
          f"{before[depth]['workload.latency_avg']} on 8 x 8")
check_table_matches_points(out, [("ok", d) for d in DEPTHS])

# Another binary (the same program with a byte appended, which ELF ignores).
other_wsesim = ctx.path("wsesim-other")
shutil.copy(ctx.wsesim, other_wsesim)
with open(other_wsesim, "ab") as f:
    f.write(b"\0")
rebuilt = sweep_with(moved, "--wsesim", other_wsesim)
check_resume(rebuilt, len(DEPTHS), 0, "resume with another binary")
announcement = f"sweep: the wsesim binary {other_wsesim} changed since {len(DEPTHS)} point(s) were run: they run again\n"
check(announcement in rebuilt.stdout, f"expected the line '{announcement.strip()}':\n{rebuilt.stdout}")

# Jobs for a scheduler: planned against the edited presets, run where
# WSESIM_PRESET_DIR names the original ones; the plan's presets win.
with open(tiny, "w", encoding="utf-8") as f:
    f.write(text.replace("  width: 8  #", "  width: 2  #"))
emitted = sweep_with(moved, "--wsesim", other_wsesim, "--emit", "parallel")
check_exit(emitted, 0, "emit parallel")
check(f"the presets in {moved} changed since {len(DEPTHS)} point(s)" in emitted.stdout,
      f"emit did not announce the rerun:\n{emitted.stdout}")
job = ctx.script("run_point.py", out, "arch.fabric.queue_depth=2", env={**os.environ, "WSESIM_PRESET_DIR": presets})
check_exit(job, 0, "run_point.py")
result = load_json(os.path.join(out, "points", "arch.fabric.queue_depth=2", "result.json"))
check(result["config"]["arch"]["mesh"]["width"] == 2, f"the job ran on other presets: {result['config']['arch']['mesh']}")
print("same presets kept every point; an edited preset and another binary reran every point, announced")
