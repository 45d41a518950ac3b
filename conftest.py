"""Collection rules for the packages' doctests (the test fixtures live in tests/conftest.py).

A module that imports an optional extra at its top is left out of doctest collection when that
extra is not installed; its tests skip through ``pytest.importorskip``.
"""

from __future__ import annotations

import importlib.util

_NEEDS = {"awm_gym/integrations/verifiers.py": "verifiers"}
"""Module path -> the package its import needs."""

collect_ignore = [path for path, package in _NEEDS.items()
                  if importlib.util.find_spec(package) is None]
