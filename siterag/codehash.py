"""What a cache key says about the code behind a stage: a hash of its modules' source."""

from __future__ import annotations

import functools
import hashlib
import inspect
from types import ModuleType


@functools.cache
def code_hash(*modules: ModuleType) -> str:
    """sha256 (16 hex digits) of the modules' source, read once per process: a code change re-does the stage."""
    return hashlib.sha256("".join(inspect.getsource(m) for m in modules).encode()).hexdigest()[:16]
