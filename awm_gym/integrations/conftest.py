"""Doctest collection of the bridges: a bridge whose library is not installed is skipped."""

from __future__ import annotations

import importlib.util

collect_ignore = [name for name, module in (("openenv", "openenv.core"),)
                  if importlib.util.find_spec(module.split(".")[0]) is None]
