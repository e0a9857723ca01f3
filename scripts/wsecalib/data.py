"""Measured points: CSV files of runs on the real machine, of two kinds,
told apart by the header.

GEMM cycles (kind `gemm`): `p` (the grid is p x p PEs), `tile` (each
PE's block edge), `n` (M = K = N), `hw_cycles` (measured), and optionally
`algorithm` (default summa) and `dtype` (default fp32).

Training throughput (kind `train`): `model` (a zoo name), `preset`,
`systems` (CS systems), `global_batch` (sequences per step over all
systems), `seq` (tokens per sequence), `samples_per_second` (measured).

Lines starting with # are the file's provenance and are kept for the
report. The kinds are the wsesim workload types the points run as."""
import csv
import dataclasses
from typing import Callable, ClassVar, Tuple


class DataError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class GemmPoint:
    algorithm: str
    dtype: str
    p: int
    tile: int
    n: int
    hw_cycles: float
    kind: ClassVar[str] = "gemm"

    @property
    def name(self):
        return f"{self.algorithm}_{self.dtype}_p{self.p}_t{self.tile}"

    @property
    def measured(self):
        return self.hw_cycles


@dataclasses.dataclass(frozen=True)
class TrainingPoint:
    model: str
    preset: str
    systems: int
    global_batch: int
    seq: int
    samples_per_second: float
    kind: ClassVar[str] = "train"

    @property
    def name(self):
        return f"train_{self.model}_{self.preset}_x{self.systems}_b{self.global_batch}_s{self.seq}"

    @property
    def measured(self):
        return self.samples_per_second

    @property
    def batch_per_system(self):
        return self.global_batch // self.systems  # exact: checked on reading


def _number(row, column, kind):
    try:
        return kind(row[column])
    except ValueError:
        raise ValueError(f"{column}={row[column]!r} is not {'an integer' if kind is int else 'a number'}") from None


def _gemm_point(row):
    point = GemmPoint(row.get("algorithm", "summa"), row.get("dtype", "fp32"), _number(row, "p", int),
                      _number(row, "tile", int), _number(row, "n", int), _number(row, "hw_cycles", float))
    if point.p < 1 or point.tile < 1 or point.hw_cycles <= 0:
        raise ValueError("p and tile must be >= 1 and hw_cycles > 0")
    if point.n != point.p * point.tile:
        raise ValueError(f"n={point.n} is not p x tile = {point.p * point.tile}")
    return point


def _training_point(row):
    point = TrainingPoint(row["model"], row["preset"], _number(row, "systems", int),
                          _number(row, "global_batch", int), _number(row, "seq", int),
                          _number(row, "samples_per_second", float))
    if min(point.systems, point.global_batch, point.seq) < 1 or point.samples_per_second <= 0:
        raise ValueError("systems, global_batch and seq must be >= 1 and samples_per_second > 0")
    if point.global_batch % point.systems:
        raise ValueError(f"global_batch={point.global_batch} is not divisible by systems={point.systems} "
                         f"(each system runs global_batch / systems sequences)")
    return point


@dataclasses.dataclass(frozen=True)
class Format:
    kind: str
    unit: str            # of the measured value
    required: Tuple[str, ...]
    optional: Tuple[str, ...]
    measured: str        # the column holding the measurement
    parse: Callable      # a row (column -> text) to a point; ValueError naming what is wrong

    def needs(self):
        return ", ".join(self.required) + (f"; optional {', '.join(self.optional)}" if self.optional else "")


FORMATS = (
    Format("gemm", "cycles", ("p", "tile", "n", "hw_cycles"), ("algorithm", "dtype"), "hw_cycles", _gemm_point),
    Format("train", "samples/s", ("model", "preset", "systems", "global_batch", "seq", "samples_per_second"), (),
           "samples_per_second", _training_point),
)
UNIT = {f.kind: f.unit for f in FORMATS}
# What describes a point (its columns but the measurement): the names --fit-on
# may use and the report's columns. A point of the other kind has them as None.
FIELDS = tuple(c for f in FORMATS for c in f.required + f.optional if c != f.measured)


def fields(point):
    return {name: getattr(point, name, None) for name in FIELDS}


def _format_of(path, header_number, columns):
    """The format whose required columns the header names most of."""
    best = max(FORMATS, key=lambda f: len(set(f.required) & set(columns)))
    if not set(best.required) & set(columns):
        raise DataError(f"{path}:{header_number}: the header names the columns of no known kind: "
                        + " or ".join(f"{f.kind} ({f.needs()})" for f in FORMATS))
    missing = [c for c in best.required if c not in columns]
    if missing:
        raise DataError(f"{path}:{header_number}: header lacks column(s) {', '.join(missing)} "
                        f"(a {best.kind} file needs {best.needs()})")
    return best


def read_points(path):
    """Returns (points, provenance lines). Raises DataError naming the file,
    line and column of anything it cannot use."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from e
    provenance = [line.lstrip("# ").rstrip() for line in lines if line.startswith("#")]
    body = [(number, line) for number, line in enumerate(lines, 1) if line.strip() and not line.startswith("#")]
    if not body:
        raise DataError(f"{path}: no header line and no data")
    header_number, header = body[0]
    columns = [c.strip() for c in next(csv.reader([header]))]
    form = _format_of(path, header_number, columns)
    points = []
    for number, line in body[1:]:
        row = dict(zip(columns, (v.strip() for v in next(csv.reader([line])))))
        if len(row) != len(columns) or any(v == "" for v in row.values()):
            raise DataError(f"{path}:{number}: expected {len(columns)} values ({', '.join(columns)})")
        try:
            points.append(form.parse(row))
        except ValueError as e:
            raise DataError(f"{path}:{number}: {e}") from e
    if not points:
        raise DataError(f"{path}: no data rows after the header")
    return points, provenance


def read_all(paths):
    """The points of several files, in order, and each file's provenance.
    A point's name must be unique: it keys its role and its cached runs."""
    points, provenance, source = [], {}, {}
    for path in paths:
        points_of_file, provenance[path] = read_points(path)
        for point in points_of_file:
            if point.name in source:
                raise DataError(f"{path}: point {point.name} is already in {source[point.name]}")
            source[point.name] = path
        points += points_of_file
    return points, provenance
