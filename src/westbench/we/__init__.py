"""Weighted-ensemble sampling with WESTPA 2: configuration, propagator, plugin, runs, export."""
