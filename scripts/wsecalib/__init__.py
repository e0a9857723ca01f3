"""Calibration of wsesim's timing keys against measurements of the real
machine (scripts/calibrate.py, docs/validation.md)."""
