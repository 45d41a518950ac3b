"""Policies on the World's protocol (see :mod:`agents.policies.base`)."""

from .base import BasePolicy, Policy
from .chat_policy import ChatPolicy
from .hf_policy import HFPolicy
from .openai_policy import OpenAIPolicy
from .oracle import OraclePolicy
from .random_policy import RandomPolicy
from .sampling import Generation, SamplingConfig
from .vllm_policy import VLLMEngineConfig, VLLMPolicy

__all__ = ["BasePolicy", "ChatPolicy", "Generation", "HFPolicy", "OpenAIPolicy",
           "OraclePolicy", "Policy", "RandomPolicy", "SamplingConfig", "VLLMEngineConfig",
           "VLLMPolicy"]
