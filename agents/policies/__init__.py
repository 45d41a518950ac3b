"""Policies on the World's protocol (see :mod:`agents.policies.base`)."""

from .base import BasePolicy, Policy

__all__ = ["BasePolicy", "Policy"]
