"""_augment transforms (filled in by their issue)."""

__all__: list[str] = []
