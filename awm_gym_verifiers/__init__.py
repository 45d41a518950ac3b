"""The ``verifiers`` 0.4 taskset id for AWM worlds: ``vf-eval awm-gym-verifiers ...``.

verifiers resolves a taskset id to one top-level module (``awm-gym-verifiers`` imports
``awm_gym_verifiers``) that exports one ``Taskset`` and one ``Harness`` through ``__all__``; the
code lives in :mod:`awm_gym.integrations.verifiers`.
"""

from awm_gym.integrations.verifiers import AWMHarness, AWMTaskset

__all__ = ["AWMHarness", "AWMTaskset"]
