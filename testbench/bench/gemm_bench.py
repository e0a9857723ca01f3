#!/usr/bin/python3
"""GEMM benchmark: how long the firmware's mappings take to simulate.

The headline scenario is the one the firmware issue sets as its scale
target: a weight-streamed forward GEMM the size of a GPT-3 XL FFN layer
(K = 2048, N = 8192, M = batch x sequence = 16384) on the full 750 x 994
WSE-2 in timing mode (target: under 10 minutes and 16 GiB), with
representative rows (docs/gemm-mappings.md), with and without
steady-state outputs. Smaller scenarios simulate every row, to show what
the shortcuts save. Writes one JSON document atomically.

    testbench/bench/gemm_bench.py [--wsesim build/wsesim] [--out gemm_bench.json] [--only NAME]...
"""
import os
import sys

from bench_common import ROOT, host_fields, main, run_wsesim

CONFIG = os.path.join(ROOT, "testbench", "configs", "gemm_small.yaml")


def gemm(name, m, k, n, rows="all", preset="wse2", dtype="mixed", pass_="forward", steady_state=0):
    return (name, {
        "arch.preset": preset, "run.mode": "timing", "workload.m": m, "workload.k": k, "workload.n": n,
        "workload.dtype": dtype, "workload.rows": rows, "workload.pass": pass_,
        "workload.steady_state_outputs": steady_state,
    })


SCENARIOS = [
    gemm("gpt3xl_ffn_wse2_representative_rows", 16384, 2048, 8192, rows="representative"),
    gemm("gpt3xl_ffn_n64_wse2_representative_rows", 16384, 2048, 64, rows="representative"),
    gemm("gpt3xl_ffn_n64_small_all_rows", 4096, 2048, 64, preset="small"),
    gemm("gpt3xl_ffn_n64_small_representative_rows", 4096, 2048, 64, rows="representative", preset="small"),
    gemm("gpt3xl_ffn_backward_data_wse2_representative_rows", 16384, 2048, 8192, rows="representative",
         pass_="backward_data"),
    gemm("gpt3xl_ffn_n64_small_weight_grad", 4096, 2048, 64, preset="small", pass_="weight_grad"),
    gemm("gpt3xl_ffn_n64_small_weight_grad_representative_rows", 4096, 2048, 64, rows="representative",
         preset="small", pass_="weight_grad"),
    gemm("gpt3xl_ffn_wse2_representative_rows_steady_state", 16384, 2048, 8192, rows="representative",
         steady_state=8),
    gemm("gpt3xl_ffn_weight_grad_wse2_representative_rows", 16384, 2048, 8192, rows="representative",
         pass_="weight_grad"),
    gemm("gpt3xl_ffn_weight_grad_wse2_representative_rows_steady_state", 16384, 2048, 8192, rows="representative",
         pass_="weight_grad", steady_state=8),
]


def run(wsesim, name, overrides):
    result, wall = run_wsesim(wsesim, name, CONFIG, overrides)
    w = result["workload"]
    return {
        "name": name,
        "overrides": overrides,
        "mapping": w["mapping"],
        "cycles": result["cycles"],
        "simulated_seconds": result["cycles"] / float(result["config"]["arch"]["clock_hz"]),
        "utilisation": w["utilisation"],
        "cycles_over_bound": w["cycles_over_bound"],
        "lower_bounds": w["lower_bounds"],
        "rows_simulated": w["rows_simulated"],
        "phases": w["phases"],
        "phases_extrapolated": w["phases_extrapolated"],
        "rounds_simulated": w["rounds_simulated"],
        **host_fields(result, wall),
    }


def line(row):
    return (f'{row["name"]:42s} {row["cycles"]:>10d} cycles  util {100 * row["utilisation"]:5.1f}%  '
            f'wall {row["process_wall_seconds"]:7.1f} s  RSS {row["peak_rss_bytes"] / 2**20:7.0f} MiB')

if __name__ == "__main__":
    sys.exit(main(__doc__, "gemm", SCENARIOS, run, line))
