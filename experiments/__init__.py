"""Paper experiments, one module each, run as ``python -m experiments.NAME``."""
