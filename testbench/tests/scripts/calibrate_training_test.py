#!/usr/bin/python3
"""scripts/calibrate.py on training points: a training CSV's rows run as
one step of their model (the system's batch, micro-batches `auto`), their
error is simulated / measured - 1 from the run's samples per second, the
report's training table names the micro-batch chosen, a fit on the
training points recovers a key the "measurements" were made at, GEMM and
training files go together (a table and a MAPE per kind), and bad
training files are refused with exit status 2 naming what is wrong."""
import csv
import json
import os
import subprocess

from sweep_testlib import Context, check, check_exit, load_json

ctx = Context()
TRUE_OVERHEAD = "7"
ROWS = [(1, 4), (2, 8)]  # (systems, global batch) of the tiny model, 8 tokens a sequence
TRAIN_CONFIG = os.path.join(ctx.scripts, "..", "testbench", "configs", "train_tiny.yaml")


def step(systems, global_batch):
    """The result JSON of a training point's run, as the brief of calibrate.py spells it out."""
    out = ctx.path(f"step_x{systems}.json")
    command = [ctx.wsesim, "run", TRAIN_CONFIG, "--out", out]
    for setting in ("arch.preset=tiny", "workload.model=tiny", f"workload.batch={global_batch // systems}",
                    "workload.seq=8", f"arch.cluster.systems={systems}", "workload.micro_batch=auto",
                    f"run.wafer_timing_cache={ctx.path('wafer_timing')}",
                    f"arch.pe.op_overhead_cycles={TRUE_OVERHEAD}"):
        command += ["--set", setting]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return load_json(out)["workload"]


def training_csv(name, measured):
    lines = ["# made by the model", "model,preset,systems,global_batch,seq,samples_per_second"]
    lines += [f"tiny,tiny,{systems},{batch},8,{value!r}" for (systems, batch), value in zip(ROWS, measured)]
    return ctx.write(name, "\n".join(lines) + "\n")


def calibrate(out, *args):
    return ctx.script("calibrate.py", *args, "--preset", "tiny", "--out", ctx.path(out), "--wsesim", ctx.wsesim,
                      "--jobs", "2")


def report_rows(out):
    with open(ctx.path(out, "report.csv"), encoding="utf-8") as f:
        return {row["point"]: row for row in csv.DictReader(f)}


truth = [step(systems, batch) for systems, batch in ROWS]

# Predictions at the true value against measurements 25% above and 20% below it.
off = training_csv("off.csv", [truth[0]["samples_per_second"] * 1.25, truth[1]["samples_per_second"] * 0.8])
run = calibrate("predict", off, "--no-fit", "--set", f"arch.pe.op_overhead_cycles={TRUE_OVERHEAD}")
check_exit(run, 0, "calibrate.py --no-fit on training points")
rows = report_rows("predict")
check(sorted(rows) == ["train_tiny_tiny_x1_b4_s8", "train_tiny_tiny_x2_b8_s8"], rows)
for (systems, batch), result in zip(ROWS, truth):
    row = rows[f"train_tiny_tiny_x{systems}_b{batch}_s8"]
    simulated, measured = float(row["simulated"]), float(row["measured"])
    check(row["kind"] == "train" and row["role"] == "predicted" and row["p"] == "", row)
    check((row["model"], row["systems"], row["global_batch"], row["seq"]) == ("tiny", str(systems), str(batch), "8"),
          row)
    check(abs(simulated / result["samples_per_second"] - 1) < 1e-12, (row, result["samples_per_second"]))
    check(abs(float(row["error"]) - (simulated / measured - 1)) < 1e-12, row)
    check(row["micro_batch"] == result["micro_batch"]["why"] and row["micro_batch"].startswith("auto:"), row)
    check(float(row["host_seconds"]) > 0, row)
check(abs(float(rows["train_tiny_tiny_x1_b4_s8"]["error"]) + 0.2) < 1e-9, rows)
check(abs(float(rows["train_tiny_tiny_x2_b8_s8"]["error"]) - 0.25) < 1e-9, rows)
header = ("| model | preset | systems | batch | seq | measured samples/s | predicted samples/s | error | role "
          "| micro-batch |")
check(header in run.stdout and "| -20.0% | predicted | auto: " in run.stdout and "| +25.0% |" in run.stdout,
      run.stdout)
check("MAPE (predicted points): 22.5%" in run.stdout, run.stdout)
# Where each step goes: the run's breakdown in seconds, its parts adding up to the step.
parts_header = ("| model | systems | forward GEMMs | recomputed GEMMs | backward-data GEMMs | weight-gradient GEMMs "
                "| ops | waits for weights | waits for activations | optimizer after the wafer | step |")
check(parts_header in run.stdout, run.stdout)
for (systems, batch), result in zip(ROWS, truth):
    row = rows[f"train_tiny_tiny_x{systems}_b{batch}_s8"]
    seconds_per_cycle = result["step_seconds"] / result["step_cycles"]
    breakdown = result["breakdown_cycles"]
    check(abs(float(row["step_seconds.forward GEMMs"]) - breakdown["gemms_by_pass"]["forward"] * seconds_per_cycle)
          < 1e-15 and abs(float(row["step_seconds.waits for weights"]) - breakdown["wafer_idle"] * seconds_per_cycle)
          < 1e-15 and float(row["step_seconds.recomputed GEMMs"]) == 0, row)
    parts = [float(v) for k, v in row.items() if k.startswith("step_seconds.") and k != "step_seconds.step"]
    check(abs(sum(parts) - result["step_seconds"]) <= 2 * seconds_per_cycle and
          float(row["step_seconds.step"]) == result["step_seconds"], (parts, result["step_seconds"]))
record = load_json(ctx.path("predict", "calibration.json"))
check(record["fitted"] == {} and abs(record["mape_by_kind"]["train"] - 0.225) < 1e-9, record)

# The training table goes between its own markers of a doc; the GEMM
# calibration table beside it stays as it was.
doc = ctx.write("doc.md", "<!-- calibration-table:begin (scripts/calibrate.py --update-doc) -->\nsumma\n"
                          "<!-- calibration-table:end -->\n<!-- training-table:begin (scripts/calibrate.py "
                          "--update-doc) -->\nold\n<!-- training-table:end -->\n")
documented = calibrate("predict", off, "--no-fit", "--set", f"arch.pe.op_overhead_cycles={TRUE_OVERHEAD}",
                       "--update-doc", doc)
check_exit(documented, 0, "calibrate.py --update-doc on training points")
with open(doc, encoding="utf-8") as f:
    text = f.read()
check("\nsumma\n" in text and "\nold\n" not in text and header in text and
      text.index(header) > text.index("training-table:begin"), text)

# A rerun repeats no run.
runs_before = sorted(os.listdir(ctx.path("predict", "runs")))
rerun = calibrate("predict", off, "--no-fit", "--set", f"arch.pe.op_overhead_cycles={TRUE_OVERHEAD}")
check_exit(rerun, 0, "the rerun")
check(rerun.stdout == run.stdout and sorted(os.listdir(ctx.path("predict", "runs"))) == runs_before, rerun.stdout)

# A record holds for the build that ran it: another wsesim (here the same
# program behind a wrapper script) runs every point again.
wrapper = ctx.write("wsesim_wrapper.sh", f"#!/bin/sh\nexec '{ctx.wsesim}' \"$@\"\n")
os.chmod(wrapper, 0o755)
rebuilt = ctx.script("calibrate.py", off, "--no-fit", "--set", f"arch.pe.op_overhead_cycles={TRUE_OVERHEAD}",
                     "--preset", "tiny", "--out", ctx.path("predict"), "--wsesim", wrapper, "--jobs", "2")
check_exit(rebuilt, 0, "the rerun with another wsesim")
check(rebuilt.stdout == run.stdout and len(os.listdir(ctx.path("predict", "runs"))) == 2 * len(runs_before),
      os.listdir(ctx.path("predict", "runs")))

# Fitted on the training points, from the preset's value, with a GEMM file beside them predicted.
exact = training_csv("exact.csv", [result["samples_per_second"] for result in truth])
gemm = ctx.write("gemm.csv", "p,tile,n,hw_cycles\n2,2,4,500\n")
run = calibrate("fit", gemm, exact, "--fit", "arch.pe.op_overhead_cycles", "--fit-on", 'kind == "train"')
check_exit(run, 0, "a fit on the training points")
record = load_json(ctx.path("fit", "calibration.json"))
check(record["fitted"] == {"arch.pe.op_overhead_cycles": TRUE_OVERHEAD}, record["fitted"])
rows = report_rows("fit")
check({(r["kind"], r["role"]) for r in rows.values()} == {("gemm", "predicted"), ("train", "fitted")}, rows)
check(all(abs(float(r["error"])) < 1e-9 for r in rows.values() if r["kind"] == "train"), rows)
check("| summa_fp32_p2_t2 | 2 | 2 | 500 |" in run.stdout and header in run.stdout, run.stdout)
check("MAPE (train points): 0.0%" in run.stdout and "MAPE (gemm points): " in run.stdout, run.stdout)


def refused(says, *args, text=None):
    files = [ctx.write("bad.csv", text)] if text is not None else []
    process = ctx.script("calibrate.py", *files, *args, "--out", ctx.path("bad"), "--wsesim", ctx.wsesim)
    check_exit(process, 2, says)
    check("calibrate.py: " in process.stderr and says in process.stderr, f"expected {says!r} in: {process.stderr}")


refused("header lacks column(s) seq", text="model,preset,systems,global_batch,samples_per_second\n"
                                           "tiny,tiny,1,4,100\n")
refused("bad.csv:2: global_batch=5 is not divisible by systems=2",
        text="model,preset,systems,global_batch,seq,samples_per_second\ntiny,tiny,2,5,8,100\n")
refused("systems='two' is not an integer",
        text="model,preset,systems,global_batch,seq,samples_per_second\ntiny,tiny,two,4,8,100\n")
refused("the header names the columns of no known kind", text="a,b\n1,2\n")
refused("point train_tiny_tiny_x1_b4_s8 is already in", exact, exact)
refused("a train point has p, tile, n, algorithm, dtype None", gemm, exact, "--fit-on", "p < 4")
print("ok")
