"""What every benchmark script shares: its command line, running `wsesim run`
once per scenario (a fresh process, so SystemC elaborates once and peak
memory is per scenario), and writing the results document atomically."""
import argparse
import json
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_WSESIM = os.path.join(ROOT, "build", "wsesim")


def run_wsesim(wsesim, name, config, overrides):
    """Runs one scenario; returns (result document, process wall seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [wsesim, "run", config, "--out", out]
        for key, value in overrides.items():
            cmd += ["--set", f"{key}={value}"]
        started = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - started
        if proc.returncode != 0:
            raise RuntimeError(f"{name}: wsesim exited {proc.returncode}: {proc.stderr.strip()}")
        with open(out) as f:
            return json.load(f), wall


def host_fields(result, wall):
    """The host's side of a scenario: elaboration and simulation seconds
    (as the workload measured them), the process's wall time and peak memory."""
    host = result["workload"]["host"]
    return {
        "elaboration_seconds": host["elaboration_seconds"],
        "simulation_seconds": host["simulation_seconds"],
        "process_wall_seconds": wall,
        "peak_rss_bytes": result["host"]["peak_rss_bytes"],
    }


def write_document(benchmark, rows, out):
    doc = {"benchmark": benchmark, "host": os.uname().nodename, "cpus": os.cpu_count(),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "scenarios": rows}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    print(f"wrote {out}")


def main(doc, benchmark, scenarios, run, line):
    """The command line of a benchmark script: runs each scenario (name,
    overrides) through `run(wsesim, name, overrides)`, prints `line(row)` as
    each finishes and writes the document."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wsesim", default=DEFAULT_WSESIM)
    parser.add_argument("--out", default=f"{benchmark}_bench.json")
    parser.add_argument("--only", action="append", help="run only these scenarios")
    args = parser.parse_args()

    rows = []
    for name, overrides in scenarios:
        if args.only and name not in args.only:
            continue
        row = run(args.wsesim, name, overrides)
        rows.append(row)
        print(line(row), flush=True)
    write_document(benchmark, rows, args.out)
