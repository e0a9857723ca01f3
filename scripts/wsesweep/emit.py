"""Scripts that run a planned sweep on a scheduler: a Slurm job array (one
task per pending point) and a GNU parallel job list. Both call run_point.py
with the point's name, so finished points are skipped and failures recorded
exactly as in a local run; the sweep folder and scripts/ must be on a disk
every node sees."""
import os
import shlex

from . import sweepdir
from .atomic import write_text_atomically

SCRIPTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_POINT = os.path.join(SCRIPTS_DIR, "run_point.py")
PYTHON = "/usr/bin/python3"
SLURM_SCRIPT = "slurm.sh"
SLURM_LOGS = "slurm"
PARALLEL_JOBS = "parallel.txt"


def pending_indices(out_dir, plan):
    return [i for i, p in enumerate(plan["points"]) if sweepdir.load_result(out_dir, plan, p) is None]


def emit_slurm(out_dir, plan, indices, job_name, sbatch_options):
    out_dir = os.path.abspath(out_dir)
    logs = os.path.join(out_dir, SLURM_LOGS)
    os.makedirs(logs, exist_ok=True)
    lines = [
        "#!/bin/bash",
        f"# {job_name}: {len(indices)} pending of {len(plan['points'])} points,",
        "# one array task each (task id: the point's index in sweep.json when this was written).",
        f"# Submit: sbatch {shlex.quote(os.path.join(out_dir, SLURM_SCRIPT))}",
        f"#SBATCH --job-name={job_name}",
        f"#SBATCH --array={array_ranges(indices)}",
        f"#SBATCH --output={os.path.join(logs, '%A_%a.log')}",
        "#SBATCH --ntasks=1",
        "#SBATCH --cpus-per-task=1",
    ]
    lines += [f"#SBATCH {option}" for option in sbatch_options]
    lines.append("points=(")
    lines += [f"  [{i}]={shlex.quote(plan['points'][i]['name'])}" for i in indices]
    lines.append(")")
    lines.append(f'exec {PYTHON} {shlex.quote(RUN_POINT)} {shlex.quote(out_dir)} '
                 '"${points[$SLURM_ARRAY_TASK_ID]}"')
    path = os.path.join(out_dir, SLURM_SCRIPT)
    write_text_atomically(path, "\n".join(lines) + "\n")
    os.chmod(path, 0o755)
    return path


def emit_parallel(out_dir, plan, indices):
    out_dir = os.path.abspath(out_dir)
    prefix = f"{PYTHON} {shlex.quote(RUN_POINT)} {shlex.quote(out_dir)}"
    path = os.path.join(out_dir, PARALLEL_JOBS)
    names = (shlex.quote(plan["points"][i]["name"]) for i in indices)
    write_text_atomically(path, "".join(f"{prefix} {name}\n" for name in names))
    return path


def array_ranges(indices):
    """[0, 1, 2, 5, 7, 8] -> '0-2,5,7-8' (Slurm's --array syntax)."""
    parts, start = [], None
    for i, index in enumerate(indices):
        if start is None:
            start = index
        if i + 1 == len(indices) or indices[i + 1] != index + 1:
            parts.append(str(start) if start == index else f"{start}-{index}")
            start = None
    return ",".join(parts)
