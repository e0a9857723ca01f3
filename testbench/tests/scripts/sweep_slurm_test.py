#!/usr/bin/python3
"""The Slurm path for real: a one-node Slurm (slurmctld + slurmd on
localhost, auth/none, everything under the test's folder) runs the job array
that `sweep.py --emit slurm` writes. One point is done beforehand and must be
left out of the array; the rest must come back as results in the sweep
folder, one log per task, and aggregate into the right table.
Skips (exit 77) where Slurm is not installed or cannot start here."""
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

from sweep_testlib import SKIP, Context, check, check_exit, check_table_matches_points, load_json

DEPTHS = [2, 4]


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    # Daemons must not outlive the test, even when ctest kills it at its timeout.
    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start_slurm(folder):
    node = socket.gethostname().split(".")[0]
    for sub in ("state", "spool"):
        os.makedirs(os.path.join(folder, sub))
    conf = os.path.join(folder, "slurm.conf")
    with open(conf, "w") as f:
        f.write(f"""\
ClusterName=wsesimtest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName={node} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP
""")
    env = dict(os.environ, SLURM_CONF=conf)
    daemons = []
    for daemon, extra in (("slurmctld", []), ("slurmd", ["-N", node])):
        log = open(os.path.join(folder, daemon + ".log"), "w")
        daemons.append(subprocess.Popen([daemon, "-D", "-f", conf] + extra, env=env, stdout=log,
                                        stderr=subprocess.STDOUT, preexec_fn=die_with_parent))
    return env, daemons


def wait_for_idle_node(env, daemons, folder):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if any(d.poll() is not None for d in daemons):
            break
        state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
        if state.stdout.strip() == "idle":
            return
        time.sleep(0.2)
    logs = "".join(open(os.path.join(folder, f"{d}.log")).read()[-1500:] for d in ("slurmctld", "slurmd"))
    skip(f"the local Slurm did not come up within 30 s (daemon logs follow)\n{logs}")


ctx = Context()
if not all(shutil.which(tool) for tool in ("slurmctld", "slurmd", "sbatch", "sinfo")):
    skip("Slurm is not installed (Debian: slurmctld slurmd slurm-client)")
if os.geteuid() != 0:
    skip("a local slurmd must run as root to start jobs; run the tests as root")

ctx.tiny_base()
spec = ctx.write("slurm.yaml", f"""\
base: base.yaml
axes:
  arch.fabric.queue_depth: {DEPTHS}
  workload.injection_rate: [0.05, 0.1]
metrics: [workload.latency_avg, workload.accepted_rate, cycles]
sbatch: ["--time=5"]
""")
out = ctx.path("out")
check_exit(ctx.sweep(spec, "--out", out, "--emit", "parallel"), 0, "planning the sweep")
plan = load_json(os.path.join(out, "sweep.json"))
first = plan["points"][0]["name"]
check_exit(ctx.script("run_point.py", out, first), 0, "running point 0 before submitting")
before = os.stat(os.path.join(out, "points", first, "result.json")).st_mtime_ns

emitted = ctx.sweep(spec, "--out", out, "--emit", "slurm")
check_exit(emitted, 0, "--emit slurm")
script = os.path.join(out, "slurm.sh")
with open(script) as f:
    lines = f.read().splitlines()
count = len(plan["points"])
check(f"#SBATCH --array=1-{count - 1}" in lines, f"the array must leave out the done point 0:\n{lines}")
check("#SBATCH --time=5" in lines, "the spec's sbatch options are missing")
check([f"  [{i}]={p['name']}" for i, p in enumerate(plan["points"]) if i] == [l for l in lines if l.startswith("  [")],
      f"task ids must map to the pending points' names:\n{lines}")

slurm = ctx.path("slurm")
os.makedirs(slurm)
env, daemons = start_slurm(slurm)
try:
    wait_for_idle_node(env, daemons, slurm)
    submitted = subprocess.run(["sbatch", "--parsable", script], env=env, capture_output=True, text=True)
    check_exit(submitted, 0, "sbatch of the emitted array")
    job = submitted.stdout.strip().split(";")[0]
    # Polled: sbatch --wait backs off to half-minute sleeps.
    deadline = time.monotonic() + 300
    while subprocess.run(["squeue", "-h", "-j", job], env=env, capture_output=True, text=True).stdout.strip():
        check(time.monotonic() < deadline, f"Slurm job {job} still queued or running after 300 s")
        time.sleep(0.2)
finally:
    for daemon in daemons:
        daemon.terminate()
    for daemon in daemons:
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()

logs = sorted(os.listdir(os.path.join(out, "slurm")))
check(logs == sorted(f"{job}_{i}.log" for i in range(1, count)), f"task logs {logs}")
for i in range(1, count):
    with open(os.path.join(out, "slurm", f"{job}_{i}.log")) as f:
        check(f"{plan['points'][i]['name']}: ok" in f.read(), f"task {i} did not run point {i}")
check(os.stat(os.path.join(out, "points", first, "result.json")).st_mtime_ns == before, "point 0 ran again")

aggregated = ctx.sweep(spec, "--out", out, "--aggregate")
check_exit(aggregated, 0, "--aggregate after the array")
check_table_matches_points(out, [("ok", d, r) for d in DEPTHS for r in (0.05, 0.1)])
again = ctx.sweep(spec, "--out", out, "--emit", "slurm")
check("nothing to emit" in again.stdout, f"a finished sweep still emits tasks:\n{again.stdout}")
print(f"Slurm job {job}: {count - 1} array tasks ran their points; the table is complete")
