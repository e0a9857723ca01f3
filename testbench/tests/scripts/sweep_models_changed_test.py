#!/usr/bin/python3
"""A finished training sweep resumed after the model zoo changed: with the
same model files (even copied to another folder) nothing runs again; with
one model edited every point runs again against the edited file, the sweep
says why in one line, and the table shows the edited model's numbers. A job
emitted for a scheduler runs with the zoo the plan digested, whatever its
own WSESIM_MODEL_DIR says, and one of a plan from before the zoo was
digested refuses to run."""
import json
import os
import shutil
import subprocess

from sweep_testlib import (Context, check, check_copy_reruns_nothing, check_exit, check_inputs_recorded,
                           check_resume, check_table_matches_points, load_json, rows_by_value)

AXIS, BATCHES = "workload.batch", [2, 4]
METRICS = ["workload.parameters", "workload.step_cycles", "cycles"]
# The zoo's tiny model has 4992 parameters; a third layer adds 2224 (QKV
# 16 x 48 + 48, output 16 x 16 + 16, FFN 16 x 32 + 32 + 32 x 16 + 16, two
# layer norms 2 x 2 x 16).
TINY_PARAMETERS, DEEPER_PARAMETERS = 4992, 4992 + 2224

ctx = Context()
# testbench/configs/train_tiny.yaml: a training step of tiny on the tiny preset.
ctx.write("base.yaml", """\
arch:
  preset: tiny
run:
  mode: timing
workload:
  type: train
  model: tiny
  batch: 2
""")
spec = ctx.write("models.yaml", f"""\
base: base.yaml
axes:
  {AXIS}: {BATCHES}
metrics: {METRICS}
""")
out = ctx.path("out")
# Copies of the zoo this wsesim reads, never the repository's own.
listing = subprocess.run([ctx.wsesim, "models", "--format", "json"], capture_output=True, text=True)
check_exit(listing, 0, "wsesim models --format json")
zoo = ctx.path("zoo")
shutil.copytree(json.loads(listing.stdout)["model_dir"], zoo)


def sweep_with(model_dir, *args):
    return ctx.sweep(spec, "--out", out, "--jobs", "2", *args, env={**os.environ, "WSESIM_MODEL_DIR": model_dir})


check_resume(sweep_with(zoo), len(BATCHES), 0, "first sweep")
before = rows_by_value(out, AXIS)
check(all(row["workload.parameters"] == TINY_PARAMETERS for row in before.values()), f"tiny's size: {before}")
check_inputs_recorded(out, f"{AXIS}=2", "model_dir", zoo)
moved = check_copy_reruns_nothing(sweep_with, zoo, out, AXIS, BATCHES)

# One model edited: tiny one layer deeper.
tiny = os.path.join(moved, "tiny.yaml")
with open(tiny, encoding="utf-8") as f:
    text = f.read()
for line in ("layers: 2\n", f"parameters: {TINY_PARAMETERS}\n"):
    check(f"\n{line}" in text, f"{tiny} has no '{line.strip()}' to edit")


def write_tiny(layers, parameters):
    with open(tiny, "w", encoding="utf-8") as f:
        f.write(text.replace("\nlayers: 2\n", f"\nlayers: {layers}\n")
                    .replace(f"\nparameters: {TINY_PARAMETERS}\n", f"\nparameters: {parameters}\n"))


write_tiny(3, DEEPER_PARAMETERS)
edited = sweep_with(moved)
check_resume(edited, len(BATCHES), 0, "resume with an edited model")
announcement = f"sweep: the models in {moved} changed since {len(BATCHES)} point(s) were run: they run again\n"
check(announcement in edited.stdout, f"expected the line '{announcement.strip()}':\n{edited.stdout}")
after = rows_by_value(out, AXIS)
for batch in BATCHES:
    check(after[batch]["status"] == "ok" and after[batch]["workload.parameters"] == DEEPER_PARAMETERS,
          f"batch {batch} did not run the edited model: {after[batch]}")
    # A third layer adds its GEMMs and on-wafer work to the step.
    check(after[batch]["workload.step_cycles"] > before[batch]["workload.step_cycles"],
          f"batch {batch}: {after[batch]['workload.step_cycles']} cycles with 3 layers, "
          f"{before[batch]['workload.step_cycles']} with 2")
check_table_matches_points(out, [("ok", b) for b in BATCHES])

# Jobs for a scheduler: planned against tiny with 4 layers, run where
# WSESIM_MODEL_DIR names the first copy (2 layers); the plan's zoo wins.
write_tiny(4, DEEPER_PARAMETERS + 2224)
emitted = sweep_with(moved, "--emit", "parallel")
check_exit(emitted, 0, "emit parallel")
check(f"the models in {moved} changed since {len(BATCHES)} point(s)" in emitted.stdout,
      f"emit did not announce the rerun:\n{emitted.stdout}")
job = ctx.script("run_point.py", out, "workload.batch=2", env={**os.environ, "WSESIM_MODEL_DIR": zoo})
check_exit(job, 0, "run_point.py")
result = load_json(os.path.join(out, "points", "workload.batch=2", "result.json"))
check(result["workload"]["parameters"] == DEEPER_PARAMETERS + 2224,
      f"the job ran another zoo's tiny: {result['workload']['parameters']} parameters")
# A plan from before the zoo was digested: its jobs refuse to run rather
# than run whatever zoo their environment names.
older = ctx.path("older")
shutil.copytree(out, older)
plan = load_json(os.path.join(older, "sweep.json"))
del plan["inputs"]["model_dir"], plan["inputs"]["models"]
with open(os.path.join(older, "sweep.json"), "w", encoding="utf-8") as f:
    json.dump(plan, f)
job = ctx.script("run_point.py", older, "workload.batch=4")
check_exit(job, 2, "run_point.py on an older plan")
check("written by an older sweep.py" in job.stderr and "plan it again" in job.stderr,
      f"run_point.py did not say why:\n{job.stderr}")
print("the same models kept every point; an edited model reran every point, announced, "
      "and a queued job ran the plan's zoo; an older plan's job refused")
