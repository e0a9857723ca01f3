"""Parameter sweeps over the wsesim CLI: specs, the sweep folder, the per-point
runner, aggregation, scheduler scripts and plots (see docs/exploration.md)."""
