#!/usr/bin/python3
"""Fabric kernel benchmark: simulation speed and memory on one core.

Runs `wsesim run` once per scenario (SystemC elaborates once per process, and
peak memory is per process), collects router-cycles/s and wavelet-hops/s from
each result, and writes one JSON document atomically, with the host's
memory ceilings (host_memory_probe, built beside wsesim) measured first.

    testbench/bench/fabric_bench.py [--wsesim build/wsesim] [--out fabric_bench.json] [--only NAME]...
"""
import json
import os
import subprocess
import sys

from bench_common import ROOT, host_fields, main, run_wsesim

CONFIG = os.path.join(ROOT, "testbench", "configs", "noc_small.yaml")

# (name, overrides). Targets from the fabric issue: >= 100 M router-cycles/s at
# 64x64 / 0.01, >= 40 M wavelet-hops/s at 256x256 at every load, in packet
# mode (xy) and with 24 colors in use; full wse2 fabric built in < 60 s, < 8 GiB.
def uniform(name, mesh, rate, colors, measure, warmup=1000):
    return (name, {
        "arch.preset": "wse2", "arch.mesh.width": mesh, "arch.mesh.height": mesh,
        "arch.fabric.routing": "xy", "arch.fabric.colors": 24,
        "workload.pattern": "uniform_random", "workload.injection_rate": rate,
        "workload.colors": colors, "workload.warmup_cycles": warmup,
        "workload.measure_cycles": measure, "workload.drain_cycles": 0,
    })

SCENARIOS = [
    uniform("uniform_64x64_r0.01_packet", 64, 0.01, 1, 20000),
    uniform("uniform_64x64_r0.01_24colors", 64, 0.01, 24, 20000),
    uniform("uniform_256x256_r0.005_packet", 256, 0.005, 1, 3000),
    uniform("uniform_256x256_r0.005_24colors", 256, 0.005, 24, 3000),
    uniform("uniform_256x256_r0.1_packet", 256, 0.1, 1, 1000),
    # Short: every router then holds ~100 full queues, the kernel's slowest case.
    uniform("uniform_256x256_r0.1_24colors", 256, 0.1, 24, 200, warmup=300),
    ("row_broadcast_256x256_24colors", {
        "arch.preset": "wse2", "arch.mesh.width": 256, "arch.mesh.height": 256,
        "arch.fabric.routing": "color", "workload.pattern": "row_broadcast",
        "workload.broadcast_sources": 24, "workload.injection_rate": 0.01,
        "workload.warmup_cycles": 500, "workload.measure_cycles": 2000, "workload.drain_cycles": 0,
    }),
    ("wse2_full_fabric_elaboration", {
        "arch.preset": "wse2", "arch.fabric.routing": "xy", "workload.pattern": "uniform_random",
        "workload.injection_rate": 0.0, "workload.warmup_cycles": 0, "workload.measure_cycles": 1,
    }),
]


def run(wsesim, name, overrides):
    result, wall = run_wsesim(wsesim, name, CONFIG, overrides)
    w = result["workload"]
    return {
        "name": name,
        "overrides": overrides,
        "mesh": f'{overrides.get("arch.mesh.width", 750)}x{overrides.get("arch.mesh.height", 994)}',
        "cycles": result["cycles"],
        "wavelet_hops": w["wavelet_hops"],
        "router_cycles_per_second": w["router_cycles_per_second"],
        "wavelet_hops_per_second": w["wavelet_hops_per_second"],
        "accepted_rate": w["accepted_rate"],
        **host_fields(result, wall),
    }


def host_memory(wsesim):
    """The host's memory ceilings (one core's random cache lines/s and
    streaming read bytes/s) from `host_memory_probe`, built beside wsesim:
    the kernel is memory-bound on large meshes, so its rates mean most next
    to these. None, with a note, where the probe is not built."""
    for probe in (os.path.join(os.path.dirname(os.path.abspath(wsesim)), "host_memory_probe"),
                  os.path.join(ROOT, "build", "host_memory_probe")):
        if os.access(probe, os.X_OK):
            proc = subprocess.run([probe], capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(f"{probe} exited {proc.returncode}: {proc.stderr.strip()}")
            ceilings = json.loads(proc.stdout)
            print(f'host memory, one core: {ceilings["random_lines_per_second"]/1e6:.0f} M random lines/s, '
                  f'{ceilings["stream_read_bytes_per_second"]/1e9:.1f} GB/s streaming read', flush=True)
            return {"host_memory": ceilings}
    print("note: no host_memory_probe beside the wsesim binary or in build/ "
          "(cmake --build build --target host_memory_probe); the host's memory ceilings are not recorded",
          file=sys.stderr)
    return {"host_memory": None}


def line(row):
    return (f'{row["name"]:36s} {row["router_cycles_per_second"]/1e6:8.1f} M router-cycles/s '
            f'{row["wavelet_hops_per_second"]/1e6:7.1f} M hops/s  elab {row["elaboration_seconds"]:6.2f} s  '
            f'RSS {row["peak_rss_bytes"]/2**20:7.0f} MiB')

if __name__ == "__main__":
    sys.exit(main(__doc__, "fabric", SCENARIOS, run, line, context=host_memory))
