#!/usr/bin/python3
"""Results do not depend on run.threads (docs/testing.md): every run below
at 1, 2, 3 and 7 threads (more than this host's cores: oversubscribed, for
correctness only) gives the same exit status, the same error, and byte for
byte the same result JSON (its host fields and run.threads itself apart),
timeline and waveform (its $date line apart). The runs marked so must
also have stepped the fabric's bands at once at 2 threads
(host.cycles_in_bands), and visited their PEs at once where there are
PEs (host.pe_cycles_in_bands), so that the bands' kernel is what is
compared; those marked as GEMMs whose phases run apart must have run on
one chip at 1 thread and on a chip per phase at more (host.chips), so
that the phases' chips are compared with one chip running them in turn:

  thread_count_test.py WSESIM SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

THREADS = [1, 2, 3, 7]

# A weight-streamed GEMM of several phases, timed.
TIMING_PHASES = ["run.mode=timing", "workload.m=256", "workload.k=64", "workload.n=512"]

# name: (example config, overrides, also write a timeline and a waveform)
RUNS = {
    # Untraced (a waveform steps every cycle on one thread), saturated: the bands at once.
    "noc_packet_bands": ("noc_small.yaml", ["arch.mesh.width=32", "arch.mesh.height=32",
                                             "workload.injection_rate=0.5", "workload.warmup_cycles=200",
                                             "workload.measure_cycles=600", "workload.drain_cycles=2000"], False),
    "noc_packet_saturated": ("noc_small.yaml", ["arch.mesh.width=16", "arch.mesh.height=16",
                                                 "workload.injection_rate=0.5", "workload.warmup_cycles=200",
                                                 "workload.measure_cycles=1000"], True),
    "noc_color_saturated": ("row_broadcast_small.yaml", ["arch.mesh.width=16", "arch.mesh.height=16",
                                                          "workload.measure_cycles=1000", "workload.warmup_cycles=200"],
                            False),
    "gemm_functional": ("gemm_small.yaml", [], True),
    # Untraced, on 32 x 16 PEs (the ring's 4 channels an edge in groups of
    # 8 rows): the fabric's bands and their PEs at once, edge routers in their bands.
    "gemm_bands": ("gemm_small.yaml", ["arch.mesh.width=16", "arch.mesh.height=32", "arch.io.channels_per_edge=4",
                                       "workload.m=512", "workload.k=128", "workload.n=48"], False),
    # Timing mode: from 2 threads on, each phase on a chip of its own.
    "gemm_phases_apart": ("gemm_small.yaml", TIMING_PHASES, False),
    # ... the weight gradient's, its outputs leaving through the egress,
    # on its representative rows and columns.
    "gemm_weight_grad_apart": ("gemm_small.yaml", TIMING_PHASES + ["workload.pass=weight_grad",
                                                                   "workload.rows=representative",
                                                                   "workload.columns=representative"], False),
    # ... in rounds, what one round ran deciding the next (steady-state outputs).
    "gemm_rounds_apart": ("gemm_small.yaml", TIMING_PHASES[:-1] + ["workload.n=2048",
                                                                  "workload.steady_state_outputs=4"], False),
    # ... past run.max_cycles together, each phase short of it: the error is one chip's.
    "gemm_apart_fails": ("gemm_small.yaml", TIMING_PHASES + ["run.max_cycles=200000"], False),
    # ... Cannon's steps, their blocks resident.
    "gemm_resident_apart": ("gemm_resident_small.yaml", ["run.mode=timing", "workload.algorithm=cannon"], False),
    "chain_reduce": ("chain_reduce_small.yaml", [], False),
    "train_cluster": ("train_tiny.yaml", ["arch.cluster.systems=4"], False),
    # More groups of GEMMs than threads: each GEMM its own group.
    "train_every_gemm": ("train_tiny.yaml", ["arch.cluster.systems=4", "workload.phases=all"],
                         False),
    "train_timeline": ("train_tiny.yaml", [], True),
    # Every system's wafer simulated: each further wafer's GEMMs in the groups of the first's.
    "train_every_wafer": ("train_tiny.yaml", ["arch.cluster.systems=3", "workload.wafers=every"], False),
    # Sparse blocks beside the dense LM head: each GEMM at its own ring rate,
    # its programs released phase by phase.
    "train_sparse": ("train_tiny.yaml", ["workload.weight_density=0.5", "arch.cluster.systems=2"], False),
    # Every group of GEMMs fails: the error is the earliest GEMM's whatever ran first.
    "train_fails": ("train_tiny.yaml", ["run.max_cycles=300"], False),
}


BANDS_AT_ONCE = ["noc_packet_bands", "gemm_bands"]
# Runs whose simulation fails (exit 3), at every thread count alike.
FAILS = ["gemm_apart_fails", "train_fails"]
PHASES_APART = ["gemm_phases_apart", "gemm_weight_grad_apart", "gemm_rounds_apart", "gemm_resident_apart"]

# Under AddressSanitizer (the sanitizer jobs), an error raised out of
# SystemC's coroutine stack prints this warning first, its process id and
# addresses with it: not the simulator's output (config_fuzz_test.py has
# the same).
ASAN_STACK_WARNING = re.compile(r"==\d+==WARNING: ASan is ignoring requested __asan_handle_no_return:[^\n]*\n"
                                r"False positive error reports may follow\n"
                                r"For details see https://github.com/google/sanitizers/issues/189\n")

# The simulator's own speed, measured in host time, beside the simulated results.
HOST_SPEEDS = ["router_cycles_per_second", "wavelet_hops_per_second", "pe_ops_per_second"]


def without_host(result):
    result.pop("host", None)
    workload = result.get("workload", {})
    for field in ["host"] + HOST_SPEEDS:
        workload.pop(field, None)
    result.get("config", {}).get("run", {}).pop("threads", None)
    return result


def outcome(wsesim, configs, work, name, threads):
    config, overrides, traced = RUNS[name]
    base = os.path.join(work, f"{name}.t{threads}")
    command = [wsesim, "run", os.path.join(configs, config), "--out", base + ".json", "--set", f"run.threads={threads}"]
    if traced:
        command += ["--timeline", base + ".timeline.json", "--vcd", base + ".vcd"]
    for o in overrides:
        command += ["--set", o]
    p = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    got = {"status": p.returncode, "stderr": ASAN_STACK_WARNING.sub("", p.stderr)}
    if p.returncode == 0:
        with open(base + ".json", encoding="utf-8") as f:
            result = json.load(f)
        host = result["workload"].get("host", {})
        # The fewer of the cycles the fabric's bands ran at once and (with PEs) their PEs did.
        in_bands = [host.get("cycles_in_bands", 0)]
        if "pe_cycles_in_bands" in host:
            in_bands.append(host["pe_cycles_in_bands"])
        got["cycles_in_bands"] = min(in_bands)
        got["chips"] = host.get("chips", 1)
        got["result"] = json.dumps(without_host(result), sort_keys=True)
        if traced:
            with open(base + ".timeline.json", "rb") as f:
                got["timeline"] = f.read()
            with open(base + ".vcd", encoding="utf-8") as f:
                got["vcd"] = re.sub(r"\$date.*?\$end", "", f.read(), count=1, flags=re.S)
    return got


def main():
    wsesim, source, work = sys.argv[1:4]
    configs = os.path.join(source, "testbench", "configs")
    os.makedirs(work, exist_ok=True)
    failures = []
    for name in RUNS:
        first = outcome(wsesim, configs, work, name, THREADS[0])
        if name in FAILS:
            if first["status"] != 3:
                failures.append(f"{name}: expected a failed simulation (exit 3), got {first['status']}")
        elif first["status"] != 0:
            failures.append(f"{name}: exit {first['status']}: {first['stderr'].strip()}")
            continue
        for threads in THREADS[1:]:
            other = outcome(wsesim, configs, work, name, threads)
            if name in BANDS_AT_ONCE and threads == 2 and not other.get("cycles_in_bands"):
                failures.append(f"{name}: the fabric's bands (or their PEs) never ran at once at run.threads=2")
            if name in PHASES_APART and (first.get("chips") != 1 or other.get("chips", 0) < 2):
                failures.append(f"{name}: {first.get('chips')} chip(s) at run.threads=1 and {other.get('chips')} "
                                f"at run.threads={threads}: the phases did not run apart")
            for part in first:
                if part in ("cycles_in_bands", "chips"):
                    continue
                if other.get(part) != first[part]:
                    failures.append(f"{name}: {part} at run.threads={threads} differs from run.threads=1")
    for f in failures:
        print(f)
    print(f"{len(RUNS)} runs at {THREADS} threads: {'FAILED' if failures else 'same results'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
