"""Runs one point of a planned sweep: the only code that starts wsesim, used
alike by the local thread pool, Slurm array tasks and GNU parallel jobs, so
skipping finished points and recording failures behave the same everywhere."""
import dataclasses
import datetime
import json
import os
import signal
import socket
import subprocess
import time

from . import inputs as run_inputs, sweepdir
from .atomic import write_text_atomically

STDERR_TAIL_LINES = 20


@dataclasses.dataclass
class Outcome:
    name: str
    status: str          # "skipped" (done earlier), "ok" or "failed"
    seconds: float = 0.0
    reason: str = ""     # for "failed": exit status or signal, and the last stderr line


def run_point(out_dir, plan, point, cpus=None):
    """Runs `point` unless it is done; `cpus` (a set of core numbers, or None)
    confines wsesim to those cores, whose count is its default run.threads."""
    name = point["name"]
    if sweepdir.load_result(out_dir, plan, point) is not None:
        return Outcome(name, "skipped")
    directory = sweepdir.point_dir(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    sweepdir.clear_leftovers(out_dir, name)
    # Absolute paths: the command in error.json can be rerun from anywhere.
    command = [plan["wsesim"], "run", os.path.abspath(os.path.join(out_dir, sweepdir.BASE))]
    for override in point["overrides"]:
        command += ["--set", override]
    # wsesim writes its result beside the point's, which is stamped from it.
    command += ["--out", os.path.abspath(os.path.join(directory, sweepdir.UNSTAMPED))]

    # The presets and models the plan digested, wherever this job runs.
    environment = run_inputs.environment(plan["inputs"])

    started = time.monotonic()
    try:
        # stdout is wsesim's human summary, already in the result JSON.
        confine = ["taskset", "--cpu-list", ",".join(str(c) for c in sorted(cpus))] if cpus else []
        process = subprocess.run(confine + command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 env={**os.environ, **environment})
        returncode, stderr = process.returncode, process.stderr.decode(errors="replace")
    except OSError as e:
        returncode, stderr = None, f"cannot start {command[0]}: {e.strerror}"
    seconds = time.monotonic() - started

    error_path = os.path.join(directory, sweepdir.ERROR)
    if returncode == 0 and sweepdir.stamp_result(out_dir, plan, point):
        if os.path.exists(error_path):
            os.unlink(error_path)
        return Outcome(name, "ok", seconds)

    if returncode == 0:
        stderr += "\nwsesim exited 0 but left no readable result"
    record = {
        "point": name,
        "values": point["values"],
        "command": command,
        "environment": environment,
        "exit_status": returncode if returncode is None or returncode >= 0 else None,
        "signal": signal.Signals(-returncode).name if returncode is not None and returncode < 0 else None,
        "stderr_tail": stderr.splitlines()[-STDERR_TAIL_LINES:],
        "host": socket.gethostname(),
        "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
    }
    write_text_atomically(error_path, json.dumps(record, indent=1) + "\n")
    return Outcome(name, "failed", seconds, failure_reason(record))


def failure_reason(record):
    if record["signal"]:
        cause = f"killed by {record['signal']}"
    elif record["exit_status"] is None:
        cause = "did not start"
    else:
        cause = f"exit status {record['exit_status']}"
    last_line = record["stderr_tail"][-1] if record["stderr_tail"] else ""
    return f"{cause}: {last_line}" if last_line else cause
