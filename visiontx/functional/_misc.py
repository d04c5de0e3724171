"""Misc ops: blur, noise, normalize, erase, jpeg, temporal subsampling."""

__all__: list[str] = []
