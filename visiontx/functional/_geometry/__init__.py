"""_geometry ops (filled in by their issue)."""

__all__: list[str] = []
