"""Which OpenEnv is installed: the error when none is, the refusal when both lines are.

Every module of :mod:`awm_gym.integrations.openenv` that imports OpenEnv raises
:func:`missing_openenv` when it is absent; :func:`check_one_distribution` is ``awm doctor``'s
check that ``openenv`` and ``openenv-core`` are not installed together. Both names are public in
the package itself too (``from awm_gym.integrations.openenv import missing_openenv``); they live
here so that its submodules import them without importing the package's face, which imports
its server when asked for it.

Example:
    >>> error = missing_openenv(ImportError("No module named 'openenv'"))
    >>> "pip install 'awm-gym[openenv]'" in str(error)
    True
"""

from __future__ import annotations

__all__ = ["check_one_distribution", "missing_openenv"]


def missing_openenv(error: ImportError) -> ImportError:
    """The one-line error a module of this package raises when OpenEnv is not installed."""
    return ImportError(f"awm_gym.integrations.openenv needs OpenEnv ({error}); install it with "
                       "pip install 'awm-gym[openenv]' (or 'awm-gym[openenv-core]' beside vllm "
                       "or verifiers).")


def check_one_distribution() -> None:
    """Refuse an environment where ``openenv`` and ``openenv-core`` are both installed: both
    write the same ``openenv`` package, so whichever installed last wins file by file.

    Raises:
        AWMGymError: both are installed (the message gives the fix).
    """
    import importlib.metadata as md

    names = {(d.metadata["Name"] or "").lower() for d in md.distributions()}
    if {"openenv", "openenv-core"} <= names:
        from awm_gym.errors import AWMGymError

        raise AWMGymError(
            "openenv and openenv-core are both installed and write the same openenv package; "
            "keep one: pip uninstall -y openenv openenv-core, then pip install "
            "'awm-gym[openenv]' (today's OpenEnv) or 'awm-gym[openenv-core]' (the 0.3 line, "
            "beside vllm or verifiers: docs/integrations.md, OpenEnv).")
