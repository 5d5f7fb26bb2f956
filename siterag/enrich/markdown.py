"""Markdown patterns the enrich stage reads a corpus body with (one place for each)."""

from __future__ import annotations

import re

MD_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")  # a picture: its alt text, its address and caption (`"Spin up"`)
