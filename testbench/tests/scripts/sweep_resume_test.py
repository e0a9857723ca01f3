#!/usr/bin/python3
"""A 2-axis sweep run on 2 jobs is interrupted twice (SIGTERM, then SIGKILL,
to its whole process group) while points are running, then resumed: every
point ends up done exactly once, finished points are not rerun, partial
files never count as done, and the table matches every point's result."""
import itertools
import os
import signal
import subprocess
import time

from sweep_testlib import Context, check, check_exit, check_table_matches_points, load_json

RATES = [0.02, 0.04, 0.06, 0.08]
DEPTHS = [2, 4, 8]
METRICS = ["workload.latency_avg", "workload.accepted_rate", "workload.measured_packets", "cycles"]

ctx = Context()
# 60000 measured cycles take 0.1 to 0.3 s per point: slow enough to be
# caught midway, fast enough for the whole test to take a few seconds.
ctx.tiny_base(measure_cycles=60000)
spec = ctx.write("resume.yaml", f"""\
base: base.yaml
axes:
  workload.injection_rate: {RATES}
  arch.fabric.queue_depth: {{start: 2, stop: 8, factor: 2}}
metrics: {METRICS}
""")
out = ctx.path("out")
points_dir = os.path.join(out, "points")
names = {f"workload.injection_rate={r},arch.fabric.queue_depth={d}" for r, d in itertools.product(RATES, DEPTHS)}


def results_done():
    if not os.path.isdir(points_dir):
        return set()
    return {n for n in os.listdir(points_dir) if os.path.exists(os.path.join(points_dir, n, "result.json"))}


def interrupt_after(done_count, sig):
    sweep = subprocess.Popen(["/usr/bin/python3", os.path.join(ctx.scripts, "sweep.py"), spec, "--out", out,
                              "--jobs", "2", "--wsesim", ctx.wsesim],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while len(results_done()) < done_count and sweep.poll() is None:
        time.sleep(0.005)
    check(sweep.poll() is None, f"the sweep finished before {done_count} points were done: cannot interrupt it")
    os.killpg(sweep.pid, sig)
    sweep.wait()
    # wsesim children die with the group; wait until none is left writing.
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-g", str(sweep.pid)], capture_output=True).returncode == 0:
        check(time.monotonic() < deadline, "wsesim processes outlived the killed sweep")
        time.sleep(0.05)
    done = results_done()
    check(done_count <= len(done) < len(names), f"{len(done)} of {len(names)} points done after {sig.name}")
    return done


interrupt_after(3, signal.SIGTERM)
done_before = interrupt_after(7, signal.SIGKILL)
check(done_before <= names, f"unexpected point folders: {done_before - names}")

# What a run killed while writing, or an interrupted copy, leaves behind:
# a truncated result and temporary files (ours, and wsesim's own atomic
# write of its result). None may count as done, and a rerun clears them.
truncated = sorted(done_before)[0]
with open(os.path.join(points_dir, truncated, "result.json"), "r+") as f:
    f.truncate(len(f.read()) // 2)
never_done = sorted(names - done_before)[0]
os.makedirs(os.path.join(points_dir, never_done), exist_ok=True)
for leftover in ["result.json.tmp.99999", "wsesim.json.tmp.99998", "wsesim.json"]:
    with open(os.path.join(points_dir, never_done, leftover), "w") as f:
        f.write('{"workload": {"latency_avg": ')

kept = {n: os.stat(os.path.join(points_dir, n, "result.json")) for n in done_before - {truncated}}
resumed = ctx.sweep(spec, "--out", out, "--jobs", "2")
check_exit(resumed, 0, "resumed sweep")
check(f"{len(names)} points, {len(kept)} done earlier, {len(names) - len(kept)} to run" in resumed.stdout,
      f"resume did not skip exactly the {len(kept)} finished points:\n{resumed.stdout}")

check(set(os.listdir(points_dir)) == names, f"point folders {sorted(os.listdir(points_dir))}")
for name in names:
    files = set(os.listdir(os.path.join(points_dir, name)))
    check(files == {"result.json"}, f"{name}: unexpected files {files - {'result.json'}}")
    load_json(os.path.join(points_dir, name, "result.json"))
for name, before in kept.items():
    after = os.stat(os.path.join(points_dir, name, "result.json"))
    check((after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), f"{name} was run again")

plan = load_json(os.path.join(out, "sweep.json"))
check(sorted(p["name"] for p in plan["points"]) == sorted(names), "sweep.json does not list the 12 points")
check_table_matches_points(out, [("ok", r, d) for r, d in itertools.product(RATES, DEPTHS)])
print(f"sweep resumed after SIGTERM and SIGKILL: {len(names)} points, {len(kept)} kept, table matches")
