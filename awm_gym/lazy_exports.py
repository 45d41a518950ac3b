"""Package faces: ``__all__`` names the public API, heavy modules load on first use (PEP 562).

A package's ``__init__.py`` imports its light names as usual and hands the heavy ones to
:func:`lazy_exports`, so ``import awm_gym`` stays light while ``from awm_gym.envs import
WorldRuntime`` still works::

    __getattr__ = lazy_exports(__name__, {"runtime": ("WorldRuntime",)})

Example:
    >>> getattr_ = lazy_exports("awm_gym.envs", {"config": ("EnvConfig",)})
    >>> getattr_("EnvConfig").__name__
    'EnvConfig'
    >>> getattr_("Nope")
    Traceback (most recent call last):
    ...
    AttributeError: module 'awm_gym.envs' has no attribute 'Nope'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name in ``modules[sub]`` is imported from
    ``package.sub`` when first read, then kept as a plain attribute of the package.

    Args:
        package: the package's ``__name__``.
        modules: ``{submodule: names}``, the submodule relative to ``package``.
    """
    home = {name: sub for sub, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:  # noqa: N807 - the PEP 562 hook's own name
        sub = home.get(name)
        if sub is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{sub}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
