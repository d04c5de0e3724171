"""Reading and writing images (Pillow underneath)."""

__all__: list[str] = []
