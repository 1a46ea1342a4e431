"""Metrics of an engine against the ground truth."""
