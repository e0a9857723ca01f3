"""What every benchmark script shares: its command line, running `wsesim run`
once per scenario (a fresh process, so SystemC elaborates once and peak
memory is per scenario), and writing the results document atomically."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_WSESIM = os.path.join(ROOT, "build", "wsesim")
# The CPUs the runs of the calling thread are pinned to (--copies), else unset.
_pinned = threading.local()


def run_wsesim(wsesim, name, config, overrides):
    """Runs one scenario; returns (result document, process wall seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [wsesim, "run", config, "--out", out]
        for key, value in overrides.items():
            cmd += ["--set", f"{key}={value}"]
        cpus = getattr(_pinned, "cpus", None)
        started = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
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


def write_document(benchmark, rows, out, setup):
    doc = {"benchmark": benchmark, "host": os.uname().nodename, "cpus": os.cpu_count(),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **setup, "scenarios": rows}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    print(f"wrote {out}")


def fastest(rows):
    """The run with the least simulation time, with every run's time beside
    it: on a shared host the slower runs measure the neighbours."""
    best = dict(min(rows, key=lambda row: row["simulation_seconds"]))
    best["simulation_seconds_runs"] = [row["simulation_seconds"] for row in rows]
    return best


def copies_at_once(run, wsesim, name, overrides, cpus):
    """The scenario as len(cpus) independent runs at once, each at one
    thread on a CPU of its own: their simulation seconds."""
    def pinned(cpu):
        _pinned.cpus = {cpu}
        return run(wsesim, name, {**overrides, "run.threads": 1})["simulation_seconds"]
    with concurrent.futures.ThreadPoolExecutor(len(cpus)) as pool:
        return list(pool.map(pinned, cpus))


def main(doc, benchmark, scenarios, run, line, context=None):
    """The command line of a benchmark script: runs each scenario (name,
    overrides) through `run(wsesim, name, overrides)`, `--repeat` times, and
    with `--baseline` the same on a second binary, and with `--threads` at
    each of those run.threads, their runs alternating so that all meet the
    same load on the host, and with `--copies N` beside them N one-thread
    runs at once on CPUs of their own (the host's ceiling); prints
    `line(row)` per scenario, binary and thread count, keeps each one's
    fastest run and writes the document, with the fields `context(wsesim)`
    returns (measured before the scenarios)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wsesim", default=DEFAULT_WSESIM)
    parser.add_argument("--out", default=f"{benchmark}_bench.json")
    parser.add_argument("--only", action="append", help="run only these scenarios")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per scenario (and binary); the fastest is kept, all times are recorded")
    parser.add_argument("--baseline", help="a second wsesim (say, a build of the previous commit) to compare "
                        "with: each scenario's row gets a `baseline` row and the speedup")
    parser.add_argument("--threads", help="comma-separated run.threads to run each scenario at (e.g. 1,2): a "
                        "row per count, with its speedup over the first count's simulation time")
    parser.add_argument("--copies", type=int, help="the host's ceiling: each scenario also runs as this many "
                        "independent one-thread runs at once, each on a CPU of its own, alternating with the "
                        "others; `host_ceiling` is their work over one run's time (what splitting the scenario "
                        "over that many threads could gain at best on this host: shared memory bus and caches)")
    args = parser.parse_args()
    try:
        thread_counts = [int(t) for t in args.threads.split(",")] if args.threads else [None]
    except ValueError:
        parser.error(f"--threads takes comma-separated integers, got {args.threads!r}")
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    cpus = sorted(os.sched_getaffinity(0))
    if args.copies is not None:
        if not 2 <= args.copies <= len(cpus):
            parser.error(f"--copies takes 2 to the {len(cpus)} CPUs this process may use, got {args.copies}")
        # The copies are set against the scenario at one thread.
        if thread_counts == [None]:
            thread_counts = [1]
        elif 1 not in thread_counts:
            parser.error("--copies compares with the scenario at one thread: --threads must include 1")
    for binary in filter(None, (args.wsesim, args.baseline)):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary} is not an executable wsesim (build it first: cmake --build build)")

    unknown = sorted(set(args.only or []) - {name for name, _ in scenarios})
    if unknown:
        parser.error(f"no scenario named {', '.join(unknown)}; there are: {', '.join(n for n, _ in scenarios)}")

    setup = {"wsesim": args.wsesim, "baseline": args.baseline, "repeat": args.repeat,
             "threads": args.threads, "copies": args.copies, **(context(args.wsesim) if context else {})}
    binaries = [args.wsesim] + ([args.baseline] if args.baseline else [])
    rows = []
    for name, overrides in scenarios:
        if args.only and name not in args.only:
            continue
        # Per thread count and binary, by position: a baseline may be the same file.
        runs = [[[] for _ in binaries] for _ in thread_counts]
        copies = []  # per repeat, the copies' simulation seconds
        for _ in range(args.repeat):
            for threads, per_binary in zip(thread_counts, runs):
                at = {**overrides, "run.threads": threads} if threads else overrides
                for binary, its_runs in zip(binaries, per_binary):
                    its_runs.append(run(binary, name, at))
            if args.copies:
                copies.append(copies_at_once(run, args.wsesim, name, overrides, cpus[:args.copies]))
        first = None
        for threads, per_binary in zip(thread_counts, runs):
            row = fastest(per_binary[0])
            if threads:
                row["name"] = f"{name} threads={threads}"
                row["run_threads"] = threads
                first = first or row
                row["speedup_over_first_threads"] = first["simulation_seconds"] / row["simulation_seconds"]
            print(line(row), flush=True)
            if args.baseline:
                base = fastest(per_binary[1])
                row["baseline"] = base
                row["speedup"] = base["simulation_seconds"] / row["simulation_seconds"]
                print(line({**base, "name": "  baseline"}), flush=True)
                print(f'{"  speedup (baseline time / time)":36s} {row["speedup"]:8.2f}', flush=True)
            if threads and row is not first:
                print(f'{"  speedup over " + str(thread_counts[0]) + " thread(s)":36s} '
                      f'{row["speedup_over_first_threads"]:8.2f}', flush=True)
            if copies and threads == 1:
                # The copies' work (one run each) over the slowest copy's time, against one run alone: the best round.
                alone = row["simulation_seconds"]
                best = min(copies, key=max)
                row["copies_simulation_seconds"] = best
                row["copies_simulation_seconds_runs"] = copies
                row["host_ceiling"] = len(best) * alone / max(best)
                print(f'{"  host ceiling (" + str(len(best)) + " copies at once)":36s} '
                      f'{row["host_ceiling"]:8.2f}', flush=True)
            rows.append(row)
    write_document(benchmark, rows, args.out, setup)
