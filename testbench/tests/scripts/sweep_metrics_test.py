#!/usr/bin/python3
"""A sweep's metrics are checked against the fields its workload type's
results have before any point runs: a misspelling is refused at once with
the field it likely means, a field of another workload type says whose it
is; and the field list itself (scripts/wsesweep/result_fields.json) is
what the binary's results hold today (scripts/gen_result_fields.py)."""
import os
import subprocess

from sweep_testlib import Context, check, check_exit

ctx = Context()
ctx.tiny_base()


def sweep(name, metrics, workload_type=None):
    spec = ctx.write(f"{name}.yaml", "base: base.yaml\n"
                     + (f"set: {{workload.type: {workload_type}}}\n" if workload_type else "")
                     + "axes: {workload.injection_rate: [0.01, 0.02]}\n"
                     + f"metrics: [{', '.join(metrics)}]\n")
    out = ctx.path(name)
    return ctx.sweep(spec, "--out", out, "--jobs", "1"), out


bad, out = sweep("misspelt", ["workload.latency_avg", "workload.utilization", "workload.latency_p99"])
check_exit(bad, 2, "a misspelt metric")
check("unknown metric(s): workload.utilization (no noc result has it)" in bad.stderr, bad.stderr)
check(not os.path.exists(os.path.join(out, "points")), f"points ran before the metrics were checked: {out}")

close, _ = sweep("close", ["workload.latency_avgerage", "cycles"])
check_exit(close, 2, "a metric one edit from a field")
check("workload.latency_avgerage (did you mean workload.latency_avg?)" in close.stderr, close.stderr)

other, _ = sweep("other_type", ["workload.utilisation"])
check_exit(other, 2, "a gemm metric in a noc sweep")
check("workload.utilisation (a field of gemm and train results, not of noc)" in other.stderr, other.stderr)

good, out = sweep("good", ["workload.latency_avg", "workload.saturated", "config.arch.mesh.width", "cycles"])
check_exit(good, 0, "known metrics")

generator = os.path.join(ctx.scripts, "gen_result_fields.py")
drift = subprocess.run(["/usr/bin/python3", generator, "--wsesim", ctx.wsesim, "--check"],
                       capture_output=True, text=True)
check(drift.returncode == 0, f"scripts/wsesweep/result_fields.json is not what the binary's results hold:\n"
      f"{drift.stdout}{drift.stderr}")
print("ok")
