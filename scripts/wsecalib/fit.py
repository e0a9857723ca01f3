"""Least squares on relative error over the model's own response.

The timing keys enter a simulated cycle count almost linearly (each is
charged a whole number of times along the critical path; cycles per
element through a ceiling), so each round measures the model's slope in
every key by one extra run per key (a finite difference at the current
values), solves the bounded linear least-squares problem in relative error
(scipy's lsq_linear), rounds the integer keys, refits the others with them
fixed, and repeats from the new values until nothing changes. A training
point's samples per second is the inverse of a step's cycles, not linear in
the keys but close to it over a round's step; the rounds take up what the
linearisation misses. The result is always checked by running the model at
the fitted values."""
import dataclasses

import numpy as np
from scipy.optimize import lsq_linear


@dataclasses.dataclass
class Key:
    name: str
    lo: float
    hi: float
    integer: bool
    start: float  # the value before calibration
    step: float   # finite-difference step

    def format(self, value):
        return str(int(round(value))) if self.integer else f"{value:.6g}"


# What the SUMMA measurements set: the per-element, per-op and per-step
# costs. The per-op cost is the SDK SUMMA program's own loop around each op
# (arch.firmware.summa_loop_cycles), on top of the hardware's issue
# (arch.pe.op_overhead_cycles, a modelling choice): a fit of the hardware's
# share to one program's measurements would charge every kernel that
# program's loop (docs/validation.md, "Overheads belong to the program that
# pays them"). The task start is not among them by default: the data cannot tell
# it from the other three (docs/validation.md), so it stays the preset's
# modelling choice unless asked for (--fit arch.pe.task_start_cycles).
DEFAULT_KEYS = [
    Key("arch.pe.cycles_per_element.fp32.fmac", 1.0, 64.0, False, 1.0, 1.0),
    Key("arch.firmware.summa_loop_cycles", 0, 1024, True, 0, 8),
    Key("arch.fabric.route_switch_cycles", 0, 1 << 20, True, 0, 256),
]
# Fitted only when asked: the task start (see above) and the hardware's op
# issue, which training points (every kernel pays it) may identify.
OPTIONAL_KEYS = [Key("arch.pe.task_start_cycles", 0, 1024, True, 2, 8),
                 Key("arch.pe.op_overhead_cycles", 0, 1024, True, 2, 8)]


def parse_key(spec):
    """KEY or KEY=LO:HI; a KEY of DEFAULT_KEYS keeps its start and step."""
    name, _, bounds = spec.partition("=")
    known = {k.name: k for k in DEFAULT_KEYS + OPTIONAL_KEYS}
    key = dataclasses.replace(known[name]) if name in known else Key(name, 0, 1e6, True, 0, 16)
    if bounds:
        lo, sep, hi = bounds.partition(":")
        try:
            key.lo, key.hi = float(lo), float(hi)
        except ValueError:
            raise ValueError(f"--fit {spec}: bounds must be LO:HI numbers") from None
        if not sep or key.lo > key.hi:
            raise ValueError(f"--fit {spec}: bounds must be LO:HI with LO <= HI")
        key.start = min(max(key.start, key.lo), key.hi)
    return key


def values_of(keys, theta):
    return {k.name: k.format(v) for k, v in zip(keys, theta)}


def _solve(slopes, base, at, start, measured, keys, free):
    """Bounded least squares in relative error over the keys marked free,
    the others kept at `start`; the model is linearised at `at`, where it
    gave `base`: cycles(theta) = base + slopes (theta - at)."""
    a = slopes[:, free] / measured[:, None]
    fixed_part = slopes[:, ~free] @ start[~free] if (~free).any() else 0.0
    b = (measured - base + slopes @ at - fixed_part) / measured
    lo = np.array([k.lo for k in keys])[free]
    hi = np.array([k.hi for k in keys])[free]
    out = start.copy()
    out[free] = lsq_linear(a, b, bounds=(lo, hi)).x
    return out


def fit(model, points, keys, log, max_rounds=4):
    measured = np.array([p.measured for p in points])
    theta = np.array([k.start for k in keys], dtype=float)
    history = []
    for round_number in range(1, max_rounds + 1):
        jobs = [(p, values_of(keys, theta)) for p in points]
        steps = []
        for i, k in enumerate(keys):
            step = k.step if theta[i] + k.step <= k.hi else -k.step
            probe = theta.copy()
            probe[i] += step
            steps.append(step)
            jobs += [(p, values_of(keys, probe)) for p in points]
        simulated = np.array([r["simulated"] for r in model.simulate(jobs)], dtype=float)
        simulated = simulated.reshape(len(keys) + 1, len(points))
        base = simulated[0]
        slopes = np.stack([(simulated[i + 1] - base) / steps[i] for i in range(len(keys))], axis=1)
        free = np.ones(len(keys), dtype=bool)
        new = _solve(slopes, base, theta, theta, measured, keys, free)
        integer = np.array([k.integer for k in keys])
        new[integer] = np.round(new[integer])
        if (~integer).any():
            new = _solve(slopes, base, theta, new, measured, keys, ~integer)
        history.append({"round": round_number, "values": values_of(keys, theta),
                        "mape_at_start": float(np.mean(np.abs(base - measured) / measured)),
                        "slopes": slopes.tolist()})
        log(f"round {round_number}: MAPE {history[-1]['mape_at_start']:.2%} at "
            + ", ".join(f"{k.name}={k.format(v)}" for k, v in zip(keys, theta)))
        if np.allclose(new, theta, rtol=1e-4, atol=1e-6):
            break
        theta = new
    return theta, history[-1]["slopes"], history


def identifiability(slopes, points):
    """Singular values and correlations of the scaled normal equations: which
    keys the data can tell apart."""
    measured = np.array([p.measured for p in points])
    a = np.array(slopes) / measured[:, None]
    scale = np.linalg.norm(a, axis=0)
    scale[scale == 0] = 1
    an = a / scale
    singular = np.linalg.svd(an, compute_uv=False)
    try:
        covariance = np.linalg.inv(an.T @ an)
        d = np.sqrt(np.abs(np.diag(covariance)))
        correlation = covariance / np.outer(d, d)
    except np.linalg.LinAlgError:
        correlation = np.full((a.shape[1], a.shape[1]), np.nan)
    return singular.tolist(), correlation.tolist()
