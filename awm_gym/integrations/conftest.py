"""Doctest collection of the bridges: a bridge whose library is not installed is skipped."""

from __future__ import annotations

import importlib.util

collect_ignore = [name for name, module in (("openenv", "openenv.core"), ("skyrl.py", "skyrl_gym"),
                                           ("inspect_tasks.py", "inspect_ai"))
                  if importlib.util.find_spec(module.split(".")[0]) is None]
