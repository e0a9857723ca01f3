#!/usr/bin/python3
"""The pinned cycle regression: a fixed set of small runs (the NoC in packet
and color mode, every GEMM algorithm and pass, chain_reduce, a training
step on one system and on a cluster) whose cycles and key results must
equal golden.json, so a change meant to keep behaviour (a refactoring, a
speed-up) proves that it did. A change meant to alter timing regenerates
the file on purpose and says why in its commit:

  pinned_cycles_test.py WSESIM SOURCE_DIR WORK_DIR [--update]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden.json")

# name: (example config, overrides, result fields kept besides cycles)
RUNS = {
    "noc_packet": ("noc_small.yaml", ["arch.mesh.width=16", "arch.mesh.height=16", "workload.measure_cycles=1000"],
                   ["workload.latency_avg", "workload.accepted_rate", "workload.wavelets_delivered", "workload.wavelet_hops"]),
    "noc_color_broadcast": ("row_broadcast_small.yaml",
                            ["arch.mesh.width=16", "arch.mesh.height=16", "workload.measure_cycles=1000",
                             "workload.warmup_cycles=200"],
                            ["workload.latency_avg", "workload.accepted_rate", "workload.wavelets_delivered", "workload.wavelet_hops"]),
    "chain_reduce": ("chain_reduce_small.yaml", [], ["workload.expected_cycles", "workload.mismatches", "workload.wavelets_delivered"]),
    "gemm_forward": ("gemm_small.yaml", [], ["workload.mismatches", "workload.lower_bounds.max", "workload.phase_start_cycles"]),
    "gemm_backward_data": ("gemm_small.yaml", ["workload.pass=backward_data"], ["workload.mismatches"]),
    "gemm_weight_grad": ("gemm_small.yaml", ["workload.pass=weight_grad"], ["workload.mismatches"]),
    "gemm_forward_memoryx": ("gemm_small.yaml", ["workload.weights=memoryx"], ["workload.mismatches"]),
    "summa": ("gemm_resident_small.yaml", [], ["workload.mismatches", "workload.phases"]),
    "summa_double": ("gemm_resident_small.yaml", ["workload.buffering=double"], ["workload.mismatches"]),
    "cannon": ("gemm_resident_small.yaml", ["workload.algorithm=cannon"], ["workload.mismatches"]),
    "meshgemm": ("gemm_resident_small.yaml", ["workload.algorithm=meshgemm"], ["workload.mismatches"]),
    "train_one_system": ("train_tiny.yaml", [], ["workload.step_cycles", "workload.breakdown_cycles"]),
    "train_cluster": ("train_tiny.yaml", ["arch.cluster.systems=4"], ["workload.step_cycles", "workload.breakdown_cycles"]),
}


def field(document, dotted):
    for part in dotted.split("."):
        document = document[part]
    return document


def run(wsesim, configs, work, name):
    config, overrides, fields = RUNS[name]
    out = os.path.join(work, name + ".json")
    command = [wsesim, "run", os.path.join(configs, config), "--out", out]
    for o in overrides:
        command += ["--set", o]
    process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if process.returncode != 0:
        return {"error": f"exit {process.returncode}: {process.stderr.strip()}"}
    with open(out, encoding="utf-8") as f:
        result = json.load(f)
    return {"cycles": result["cycles"], **{k: field(result, k) for k in fields}}


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--update"):
        sys.exit(__doc__)
    wsesim, source, work = (os.path.abspath(a) for a in argv[1:4])
    os.makedirs(work, exist_ok=True)
    configs = os.path.join(source, "testbench", "configs")
    measured = {name: run(wsesim, configs, work, name) for name in RUNS}
    if len(argv) == 5:
        with open(GOLDEN, "w", encoding="utf-8") as f:
            json.dump(measured, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {GOLDEN}")
        return 0
    with open(GOLDEN, encoding="utf-8") as f:
        golden = json.load(f)
    differ = [name for name in RUNS if measured[name] != golden.get(name)]
    for name in differ:
        print(f"{name}: golden {golden.get(name)}\n{' ' * len(name)}  now    {measured[name]}")
    print(f"{len(RUNS) - len(differ)} passed, {len(differ)} failed")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
