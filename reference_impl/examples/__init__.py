"""Bundled example inputs (``cluster.yaml``)."""
