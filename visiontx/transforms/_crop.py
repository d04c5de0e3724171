"""_crop transforms (geometry issue)."""

from __future__ import annotations

__all__: list[str] = []
