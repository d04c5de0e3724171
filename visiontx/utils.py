"""Drawing boxes and masks, making grids, saving images."""

__all__: list[str] = []
