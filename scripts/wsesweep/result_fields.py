"""A sweep's metrics against the result fields its workload type has
(result_fields.json, written by scripts/gen_result_fields.py from real
runs), checked before the first point runs: a misspelt metric fails at
once, with the field it likely means or the workload type that has it."""
import difflib
import json
import os

import yaml

from .spec import SpecError, _WsesimLoader

FIELDS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "result_fields.json")


def load_fields():
    with open(FIELDS_FILE, encoding="utf-8") as f:
        return {t: set(fields) for t, fields in json.load(f).items()}


def workload_types(spec):
    """The workload types the sweep's points run: an axis over
    workload.type, else its 'set', else the base config's (empty if none)."""
    for axis in spec.axes:
        if axis.key == "workload.type":
            return sorted({str(v) for v in axis.values})
    if "workload.type" in spec.overrides:
        return [str(spec.overrides["workload.type"])]
    try:
        base = yaml.load(spec.base_text, Loader=_WsesimLoader)
    except yaml.YAMLError:
        return []  # wsesim names the base config's own error when the point runs
    if not isinstance(base, dict):
        return []
    workload = base.get("workload")
    value = workload.get("type") if isinstance(workload, dict) else base.get("workload.type")
    return [str(value)] if isinstance(value, str) else []


def check_metrics(spec, fields=None):
    """Raises SpecError naming every metric no result of the sweep's workload
    type has (config.* metrics are the run's own keys and pass)."""
    fields = load_fields() if fields is None else fields
    problems = []
    for workload_type in workload_types(spec):
        known = fields.get(workload_type)
        if known is None:
            continue  # an unknown type: wsesim refuses it, naming the types
        for metric in spec.metrics:
            if metric.startswith("config.") or metric in known:
                continue
            others = sorted(t for t, f in fields.items() if t != workload_type and metric in f)
            if others:
                why = f"a field of {' and '.join(others)} results, not of {workload_type}"
            else:
                close = difflib.get_close_matches(metric, sorted(known), n=1, cutoff=0.8)
                why = f"did you mean {close[0]}?" if close else f"no {workload_type} result has it"
            problems.append(f"{metric} ({why})")
    if problems:
        raise SpecError(f"{spec.path}: unknown metric(s): {', '.join(problems)}; the fields a result has are "
                        f"in docs/configuration.md and scripts/wsesweep/result_fields.json")
