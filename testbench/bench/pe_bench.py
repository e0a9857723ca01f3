#!/usr/bin/python3
"""PE benchmark: simulated PE-op throughput and host memory per PE.

Runs the chain_reduce testbench with every PE of the mesh busy: a long
series of local compute ops per PE (each woken at its completion, never
polled), a streaming reduction (one element per cycle through every PE's
RAMP), and a full WSE-2 mesh in timing mode for elaboration time and
memory. Writes one JSON document atomically.

    testbench/bench/pe_bench.py [--wsesim build/wsesim] [--out pe_bench.json] [--only NAME]...
"""
import os
import sys

from bench_common import ROOT, host_fields, main, run_wsesim

CONFIG = os.path.join(ROOT, "testbench", "configs", "chain_reduce_small.yaml")


def chain(name, mode, rows, pes, length, repeat, dtype, preset="small"):
    return (name, {
        "arch.preset": preset, "run.mode": mode, "workload.rows": rows, "workload.pes": pes,
        "workload.length": length, "workload.repeat": repeat, "workload.dtype": dtype,
    })


SCENARIOS = [
    # 64x64 PEs x 200 local fp16 ops of 64 elements, then a short reduction.
    chain("compute_64x64_timing", "timing", 64, 64, 64, 200, "fp16"),
    chain("compute_64x64_functional", "functional", 64, 64, 64, 200, "fp16"),
    # 64 chains of 64 PEs streaming 2048 partial sums (32 KiB of buffers per
    # PE): one element per PE per cycle.
    chain("stream_64x64_timing", "timing", 64, 64, 2048, 1, "fp32"),
    # Every PE of a WSE-2 loaded with a program: elaboration time and memory.
    chain("wse2_full_mesh_timing", "timing", 994, 750, 16, 1, "fp32", preset="wse2"),
]


def run(wsesim, name, overrides):
    result, wall = run_wsesim(wsesim, name, CONFIG, overrides)
    w = result["workload"]
    pes = w["rows"] * w["pes"]
    sim = w["host"]["simulation_seconds"]
    return {
        "name": name,
        "overrides": overrides,
        "pes": pes,
        "cycles": result["cycles"],
        "pe_ops": w["pe_ops"],
        "pe_ops_per_second": w["pe_ops_per_second"],
        # Simulated floating-point operations per host second.
        "pe_flops_per_second": w["flops"] / sim if sim > 0 else 0.0,
        "cycles_match_closed_form": w["cycles_match_closed_form"],
        **host_fields(result, wall),
        "pe_bytes_per_pe_reserved": w["host"]["pe_bytes_per_pe"],
        "peak_rss_bytes_per_pe": result["host"]["peak_rss_bytes"] / pes,
    }


def line(row):
    return (f'{row["name"]:28s} {row["pe_ops_per_second"]/1e6:7.2f} M PE ops/s  sim {row["simulation_seconds"]:6.2f} s  '
            f'elab {row["elaboration_seconds"]:6.2f} s  RSS {row["peak_rss_bytes"]/2**20:7.0f} MiB '
            f'({row["peak_rss_bytes_per_pe"]:.0f} B/PE)  closed form {"ok" if row["cycles_match_closed_form"] else "DIFFERS"}')

if __name__ == "__main__":
    sys.exit(main(__doc__, "pe", SCENARIOS, run, line))
