"""Policies and training (GRPO, SFT) for awm_gym worlds.

Importing ``agents`` is light: torch, transformers and vLLM load only when a model does.

Example:
    >>> from agents import TrainConfig
    >>> TrainConfig().chat.history_turns
    3
"""

from .chat_format import CatalogueMode, ChatFormatConfig
from .config import TrainConfig
from .errors import AgentsError

__all__ = ["AgentsError", "CatalogueMode", "ChatFormatConfig", "TrainConfig", "run_training"]


def run_training(cfg: TrainConfig):  # noqa: ANN201 - thin lazy alias of agents.pipeline
    """Run the main job; see :func:`agents.pipeline.run_training`."""
    from .pipeline import run_training as _run

    return _run(cfg)
