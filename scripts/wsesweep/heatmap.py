"""Wafer heatmaps from the per-PE and per-link statistics of one run
(`wsesim run --map MAP.json`): PE busy fraction, SRAM high-water mark, PE
energy, or link load (one output direction, or the busiest of the four mesh
links of each router)."""
import json

import matplotlib.pyplot as plt

from .plotting import PlotError, save

MESH_PORTS = ("N", "E", "S", "W")
METRICS = ("pe_busy", "sram", "energy", "link_load", "link_load:N", "link_load:E", "link_load:S", "link_load:W",
           "link_load:RAMP")


def load_map(path):
    with open(path) as f:
        wafer_map = json.load(f)
    if wafer_map.get("format") != "wsesim-wafer-map-1":
        raise PlotError(f"{path}: not a wafer map (wsesim run --map)")
    return wafer_map


def values(wafer_map, metric):
    """The metric per router, row-major, with its label."""
    pe_fields = {"pe_busy": ("pe_busy_permille", 10, "PE busy (% of cycles)"),
                 "sram": ("sram_high_water_bytes", 1024, "SRAM high-water (KiB)"),
                 "energy": ("pe_energy_pj", 1e6, "PE energy (uJ)")}
    if metric in pe_fields:
        field, scale, label = pe_fields[metric]
        if field not in wafer_map:
            raise PlotError(f"{metric}: this run has no PEs (only link loads)")
        return [v / scale for v in wafer_map[field]], label
    if metric == "link_load":
        loads = [wafer_map["link_load_permille"][p] for p in MESH_PORTS]
        return [max(column) / 10 for column in zip(*loads)], "busiest mesh link (% of cycles)"
    port = metric.partition(":")[2]
    if metric not in METRICS:
        raise PlotError(f"{metric}: unknown metric (one of {', '.join(METRICS)})")
    return [v / 10 for v in wafer_map["link_load_permille"][port]], f"link {port} load (% of cycles)"


def heatmap(wafer_map, metric, outputs, region=None, title=None):
    """region: (x0, y0, x1, y1), inclusive; None: the whole mesh."""
    width, height = wafer_map["width"], wafer_map["height"]
    x0, y0, x1, y1 = region or (0, 0, width - 1, height - 1)
    if not (0 <= x0 <= x1 < width and 0 <= y0 <= y1 < height):
        raise PlotError(f"region {x0},{y0},{x1},{y1} is not inside the {width} x {height} mesh")
    flat, label = values(wafer_map, metric)
    grid = [flat[y * width + x0:y * width + x1 + 1] for y in range(y0, y1 + 1)]
    aspect = (y1 - y0 + 1) / (x1 - x0 + 1)
    figure, axes = plt.subplots(figsize=(6.4, max(2.4, min(9.6, 6.4 * aspect + 0.8))))
    # North (y = 0) at the top, as the mesh is drawn in docs/.
    image = axes.imshow(grid, origin="upper", interpolation="nearest", cmap="viridis",
                        extent=(x0 - 0.5, x1 + 0.5, y1 + 0.5, y0 - 0.5))
    figure.colorbar(image, ax=axes, label=label)
    axes.set_xlabel("x (PE column)")
    axes.set_ylabel("y (PE row)")
    axes.set_title(title or f"{label}, {wafer_map['cycles']} cycles", fontsize="medium")
    save(figure, outputs)
