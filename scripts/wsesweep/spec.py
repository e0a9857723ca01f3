"""The sweep spec (YAML, or JSON, which is YAML): a base run file, fixed
overrides, axes over config keys, the result fields to tabulate, and plots.
Expanding it gives the points, each with a stable name and its --set texts."""
import dataclasses
import hashlib
import itertools
import json
import math
import os
import re
import select
import stat
import urllib.parse

import yaml


class SpecError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Axis:
    key: str
    values: tuple


@dataclasses.dataclass(frozen=True)
class Point:
    name: str
    values: dict      # axis key -> typed value, in axis order
    overrides: list   # "key=value" texts for wsesim --set, fixed ones first


@dataclasses.dataclass(frozen=True)
class PlotSpec:
    name: str
    x: str
    y: list
    lines: str = None
    where: dict = dataclasses.field(default_factory=dict)
    logx: bool = False
    logy: bool = False
    title: str = None
    speedup_over: dict = dataclasses.field(default_factory=dict)  # {KEY: VALUE}: metrics as speed-ups over that point
    reciprocal_x: bool = False


@dataclasses.dataclass(frozen=True)
class Spec:
    path: str
    name: str
    base_path: str
    base_text: str
    overrides: dict   # fixed key -> value, applied to every point
    axes: list
    mode: str
    metrics: list
    plots: list
    sbatch_options: list


SPEC_KEYS = {"base", "set", "axes", "mode", "metrics", "plots", "sbatch"}
PLOT_KEYS = {"name", "x", "y", "lines", "where", "logx", "logy", "title", "speedup_over", "reciprocal_x"}
# A point's folder name must stay a valid file name (255 bytes on Linux).
MAX_NAME_LENGTH = 200
# Points a sweep may have (each one a folder), and values one range may make.
MAX_POINTS = 100000
# A plot's name names its files, plots/NAME.png and .svg.
PLOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


# As wsesim's (hw/config/StrictYaml.h): a spec or base config is a regular
# file or a pipe of at most 16 MiB.
MAX_FILE_BYTES = 16 << 20


def read_text(path, what):
    """The whole text of a regular file or a pipe, never more than
    MAX_FILE_BYTES: /dev/zero as a base config is an error, not a read that
    takes all memory."""
    where = f"cannot read {what} {path}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)  # a FIFO or device must not hang here
    except OSError as e:
        raise SpecError(f"{where}: {e.strerror}")
    try:
        mode = os.fstat(fd)
        if stat.S_ISDIR(mode.st_mode):
            raise SpecError(f"{where}: it is a directory")
        if not (stat.S_ISREG(mode.st_mode) or stat.S_ISFIFO(mode.st_mode)):
            raise SpecError(f"{where}: it is not a regular file or a pipe")
        if stat.S_ISREG(mode.st_mode) and mode.st_size > MAX_FILE_BYTES:
            raise SpecError(f"{where}: it is {mode.st_size} bytes, more than the {MAX_FILE_BYTES >> 20} MiB allowed")
        # A named FIFO may get its writer after this open: an end of file
        # before any writer came means none yet, and poll() waits for one.
        # An anonymous pipe (/dev/stdin) has had its writer.
        wait_for_writer = stat.S_ISFIFO(mode.st_mode) and not os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
        os.set_blocking(fd, not wait_for_writer)
        writer_seen, data = not wait_for_writer, bytearray()
        while len(data) <= MAX_FILE_BYTES:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:  # a writer, no data yet
                chunk, writer_seen = None, True
            if chunk:
                data += chunk
                writer_seen = True
                continue
            if chunk == b"" and writer_seen:
                break
            waiting = select.poll()
            waiting.register(fd, select.POLLIN)
            if waiting.poll():
                writer_seen = True
    except OSError as e:
        raise SpecError(f"{where}: {e.strerror}")
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(f"{where}: more than the {MAX_FILE_BYTES >> 20} MiB allowed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecError(f"{where}: byte {e.start} is not UTF-8 text")


class _WsesimLoader(yaml.SafeLoader):
    """YAML as wsesim reads it (hw/config/StrictYaml, ParamReader), not as
    PyYAML's YAML 1.1 does: a key given twice in one mapping is an error;
    numbers are decimal (010 is 10, not octal 8), with an exponent with or
    without a point (1e15 is a number, not text), or hexadecimal (0x10);
    true and false are the booleans, while yes, no, on, off, 1_000 and 1:30
    stay text."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            lines = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = lines.get(key)
                except TypeError:  # a list or a mapping as a key
                    raise yaml.constructor.ConstructorError(None, None, f"a key is not a plain name (line {line})")
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} is given twice (lines {first} and {line}); give it once")
                lines[key] = line
        return super().construct_mapping(node, deep=deep)


_NUMBER = re.compile(r"""^(?:[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|0[xX][0-9a-fA-F]+)$""")
_INTEGER = re.compile(r"^[-+]?[0-9]+$")
_WsesimLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_WsesimLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                    list("tTfF"))
_WsesimLoader.add_implicit_resolver("tag:yaml.org,2002:float", _NUMBER, list("-+.0123456789"))


def _construct_number(loader, node):
    text = loader.construct_scalar(node)
    number = wsesim_number(text)
    return text if number is None else number  # 1e400: text, as wsesim reads it


_WsesimLoader.add_constructor("tag:yaml.org,2002:float", _construct_number)
_WsesimLoader.add_constructor("tag:yaml.org,2002:int", _construct_number)


def wsesim_number(text):
    """The number wsesim reads from `text` (an int where it is an exact
    integer up to 2^53, as ParamReader accepts 1e6 for an integer key), or
    None if it reads none: not a number, or not finite."""
    text = text.strip() if isinstance(text, str) else text
    if not isinstance(text, str) or not _NUMBER.match(text):
        return None
    if _INTEGER.match(text):
        return int(text, 10)
    value = float.fromhex(text) if text[:2] in ("0x", "0X") else float(text)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) <= 2 ** 53 else value


def load_spec(path):
    text = read_text(path, "the spec")
    try:
        doc = yaml.load(text, Loader=_WsesimLoader)
    except yaml.YAMLError as e:
        raise SpecError(f"{path} is not YAML as wsesim reads it: {e}")
    except RecursionError:
        raise SpecError(f"{path}: a value contains itself through an alias")
    if not isinstance(doc, dict):
        raise SpecError(f"{path}: a spec is a mapping with keys {sorted(SPEC_KEYS)}")
    unknown = set(doc) - SPEC_KEYS
    if unknown:
        raise SpecError(f"{path}: unknown spec key(s) {sorted(unknown)}; allowed: {sorted(SPEC_KEYS)}")

    base_path = _require(doc, "base", str, path)
    # Relative to the spec, so a spec and its base config move together.
    base_path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), base_path))
    base_text = read_text(base_path, f"the base config of {path}:")

    overrides = doc.get("set") or {}
    if not isinstance(overrides, dict):
        raise SpecError(f"{path}: 'set' maps dotted config keys to values")
    for key, value in overrides.items():
        _check_key(key, "set", path)
    overrides = {key: normal_value(value, key) for key, value in overrides.items()}

    axes_doc = _require(doc, "axes", dict, path)
    if not axes_doc:
        raise SpecError(f"{path}: 'axes' needs at least one config key")
    axes = []
    for key, values in axes_doc.items():
        _check_key(key, "axes", path)
        if key in overrides:
            raise SpecError(f"{path}: {key} is both in 'set' and in 'axes'")
        axes.append(Axis(key, tuple(normal_value(v, key) for v in _axis_values(key, values, path))))

    mode = doc.get("mode", "grid")
    if mode not in ("grid", "zip"):
        raise SpecError(f"{path}: mode is 'grid' or 'zip', not {mode!r}")
    if mode == "zip" and len({len(a.values) for a in axes}) != 1:
        lengths = ", ".join(f"{a.key}: {len(a.values)}" for a in axes)
        raise SpecError(f"{path}: zipped axes need equal lengths ({lengths})")
    count = len(axes[0].values) if mode == "zip" else math.prod(len(a.values) for a in axes)
    if count > MAX_POINTS:
        raise SpecError(f"{path}: the axes make {count} points, more than the {MAX_POINTS} a sweep may have "
                        "(each is a folder): split the sweep")

    metrics = _require(doc, "metrics", list, path)
    if not metrics or not all(isinstance(m, str) and m for m in metrics):
        raise SpecError(f"{path}: 'metrics' lists result fields as dotted paths, e.g. workload.latency_avg")

    axis_keys = [a.key for a in axes]
    plots = [_plot_spec(p, axis_keys, metrics, path) for p in doc.get("plots") or []]
    if len({p.name for p in plots}) != len(plots):
        raise SpecError(f"{path}: plot names must be distinct")

    sbatch_options = doc.get("sbatch") or []
    if not isinstance(sbatch_options, list) or not all(isinstance(o, str) for o in sbatch_options):
        raise SpecError(f"{path}: 'sbatch' lists sbatch options, e.g. ['--partition=debug', '--time=30']")

    name = os.path.splitext(os.path.basename(path))[0]
    return Spec(path=os.path.abspath(path), name=name, base_path=base_path, base_text=base_text,
                overrides=overrides, axes=axes, mode=mode, metrics=metrics, plots=plots,
                sbatch_options=sbatch_options)


def fixed_overrides(spec):
    """The spec's 'set' as "key=value" texts for wsesim --set."""
    return [f"{key}={scalar_text(value, key)}" for key, value in spec.overrides.items()]


def expand_points(spec):
    fixed = fixed_overrides(spec)
    if spec.mode == "grid":
        combinations = itertools.product(*(a.values for a in spec.axes))
    else:
        combinations = zip(*(a.values for a in spec.axes))
    points, seen = [], set()
    for combination in combinations:
        values = {a.key: v for a, v in zip(spec.axes, combination)}
        texts = {key: scalar_text(value, key) for key, value in values.items()}
        name = point_name(texts)
        if name in seen:
            raise SpecError(f"{spec.path}: point {name} appears twice (repeated axis values)")
        seen.add(name)
        points.append(Point(name, values, fixed + [f"{k}={t}" for k, t in texts.items()]))
    return points


def point_name(texts):
    """'key=value,key=value' with unsafe characters %-escaped: readable in
    ls, stable across runs, and the same values always give the same name."""
    name = ",".join(f"{_escape(k)}={_escape(t)}" for k, t in texts.items())
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha1(name.encode()).hexdigest()[:12]
        name = name[:MAX_NAME_LENGTH - 13] + "~" + digest
    return name


def normal_value(value, key):
    """The value as wsesim will read it, so that values it cannot tell apart
    make one point: text that wsesim reads as a number ('1', '010') is that
    number, and a float that is an exact integer (1.0, 1e3) that integer."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SpecError(f"{key}: {value} is not a finite number")
        return int(value) if value.is_integer() and abs(value) <= 2 ** 53 else value
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        number = wsesim_number(value)
        return value if number is None else number
    raise SpecError(f"{key}: values are numbers, booleans or text, not {value!r}")


def scalar_text(value, key):
    """The value as one YAML scalar for `wsesim --set`, read back as the same value."""
    value = normal_value(value, key)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    try:
        plain = yaml.safe_load(value) == value
    except yaml.YAMLError:  # '[', '{a': quoted
        plain = False
    return value if plain else json.dumps(value)


def _escape(text):
    return urllib.parse.quote(text, safe="._-+")


def _require(doc, key, kind, path):
    if key not in doc:
        raise SpecError(f"{path}: missing '{key}'")
    if not isinstance(doc[key], kind):
        raise SpecError(f"{path}: '{key}' must be a {kind.__name__}")
    return doc[key]


def _check_key(key, section, path):
    if not isinstance(key, str) or key.split(".")[0] not in ("arch", "workload", "run") or "." not in key:
        raise SpecError(f"{path}: {section}: {key!r} is not a dotted config key (arch.*, workload.*, run.*)")


def _axis_values(key, values, path):
    if isinstance(values, list):
        if not values:
            raise SpecError(f"{path}: axis {key} has no values")
        for v in values:
            scalar_text(v, key)
        return values
    if isinstance(values, dict):
        return _range_values(key, values, path)
    raise SpecError(f"{path}: axis {key} is a list of values or a range {{start, stop, step|factor}}")


def _range_values(key, r, path):
    where = f"{path}: axis {key}"
    kinds = set(r) - {"start", "stop"}
    if set(r) - {"start", "stop", "step", "factor"} or kinds not in ({"step"}, {"factor"}) \
            or "start" not in r or "stop" not in r:
        raise SpecError(f"{where}: a range is {{start, stop, step}} or {{start, stop, factor}}")
    numbers = [r[k] for k in r]
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) for n in numbers):
        raise SpecError(f"{where}: range bounds and step/factor must be finite numbers")
    start, stop = r["start"], r["stop"]
    exact = all(isinstance(n, int) for n in numbers)
    if stop < start:
        raise SpecError(f"{where}: stop {stop} is below start {start}")
    # Float ranges: a relative tolerance keeps the stop value in (0.1 steps
    # do not add up exactly), and 12 significant digits drop the noise, so
    # the names read 0.3 rather than 0.30000000000000004.
    if "step" in r:
        step = r["step"]
        if step <= 0:
            raise SpecError(f"{where}: step must be positive")
        count = (stop - start) // step + 1 if exact else math.floor((stop - start) / step * (1 + 1e-9)) + 1
        _check_count(where, count)
        if exact:
            return list(range(start, stop + 1, step))
        return [float(f"{start + i * step:.12g}") for i in range(count)]
    factor = r["factor"]
    if factor <= 1 or start <= 0:
        raise SpecError(f"{where}: a geometric range needs factor > 1 and start > 0")
    _check_count(where, math.floor(math.log(stop / start) / math.log(factor) * (1 + 1e-9)) + 1 if stop >= start else 0)
    values, v = [], start
    while v <= stop * (1 + 1e-9):
        values.append(v if exact else float(f"{v:.12g}"))
        v *= factor
    return values


def _check_count(where, count):
    if count > MAX_POINTS:
        shown = count if count < 10 ** 12 else f"{float(count):.3g}"
        raise SpecError(f"{where}: the range makes {shown} values, more than the {MAX_POINTS} a sweep may have")


def _plot_spec(doc, axis_keys, metrics, path):
    if not isinstance(doc, dict) or set(doc) - PLOT_KEYS or "name" not in doc or "x" not in doc or "y" not in doc:
        raise SpecError(f"{path}: a plot is a mapping with name, x, y and optionally title, lines, where, logx, "
                        "logy, speedup_over, reciprocal_x")
    if not isinstance(doc["name"], str) or not PLOT_NAME.match(doc["name"]):
        raise SpecError(f"{path}: plot name {doc['name']!r}: letters, digits, '.', '_' and '-', at most 100, "
                        "not starting with '.' (it names the files plots/NAME.png and .svg)")
    where = f"{path}: plot {doc['name']}"
    y = doc["y"] if isinstance(doc["y"], list) else [doc["y"]]
    if "title" in doc and (not isinstance(doc["title"], str) or not doc["title"].strip()):
        raise SpecError(f"{where}: title is the plot's heading, a non-empty string")
    speedup_over = doc.get("speedup_over") or {}
    if not isinstance(speedup_over, dict) or len(speedup_over) > 1:
        raise SpecError(f"{where}: speedup_over maps one swept key to the value whose point the speed-ups are "
                        "over, e.g. {workload.weight_density: 1}")
    for key in ([doc["x"]] + ([doc["lines"]] if doc.get("lines") else []) + list(doc.get("where") or {}) +
                list(speedup_over)):
        if key not in axis_keys:
            raise SpecError(f"{where}: {key} is not an axis ({', '.join(axis_keys)})")
    for metric in y:
        if metric not in metrics:
            raise SpecError(f"{where}: {metric} is not among the metrics")
    return PlotSpec(name=str(doc["name"]), x=doc["x"], y=y, lines=doc.get("lines"),
                    where=dict(doc.get("where") or {}), logx=bool(doc.get("logx")), logy=bool(doc.get("logy")),
                    title=doc.get("title"), speedup_over=dict(speedup_over),
                    reciprocal_x=bool(doc.get("reciprocal_x")))
