"""Policies on the World's protocol (see :mod:`agents.policies.base`)."""

from .base import BasePolicy, Policy
from .oracle import OraclePolicy
from .random_policy import RandomPolicy

__all__ = ["BasePolicy", "OraclePolicy", "Policy", "RandomPolicy"]
