"""Measured points: a CSV file of runs on the real machine.

Columns: `p` (the grid is p x p PEs), `tile` (each PE's block edge),
`n` (M = K = N), `hw_cycles` (measured), and optionally `algorithm`
(default summa) and `dtype` (default fp32). Lines starting with # are the
file's provenance and are kept for the report."""
import csv
import dataclasses


class DataError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Point:
    algorithm: str
    dtype: str
    p: int
    tile: int
    n: int
    hw_cycles: float

    @property
    def name(self):
        return f"{self.algorithm}_{self.dtype}_p{self.p}_t{self.tile}"


REQUIRED = ("p", "tile", "n", "hw_cycles")


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
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise DataError(f"{path}:{header_number}: header lacks column(s) {', '.join(missing)} "
                        f"(needs {', '.join(REQUIRED)}; optional algorithm, dtype)")
    points = []
    for number, line in body[1:]:
        row = dict(zip(columns, (v.strip() for v in next(csv.reader([line])))))
        if len(row) != len(columns) or any(v == "" for v in row.values()):
            raise DataError(f"{path}:{number}: expected {len(columns)} values ({', '.join(columns)})")
        try:
            point = Point(row.get("algorithm", "summa"), row.get("dtype", "fp32"), int(row["p"]), int(row["tile"]),
                          int(row["n"]), float(row["hw_cycles"]))
        except ValueError as e:
            raise DataError(f"{path}:{number}: {e}") from e
        if point.p < 1 or point.tile < 1 or point.hw_cycles <= 0:
            raise DataError(f"{path}:{number}: p and tile must be >= 1 and hw_cycles > 0")
        if point.n != point.p * point.tile:
            raise DataError(f"{path}:{number}: n={point.n} is not p x tile = {point.p * point.tile}")
        points.append(point)
    if not points:
        raise DataError(f"{path}: no data rows after the header")
    return points, provenance
