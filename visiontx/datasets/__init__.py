"""Datasets and the wrapper that turns their samples into datapoints."""

__all__: list[str] = []
