"""GRPO for multi-turn tool use: rollouts, advantages, the clipped loss, the loop, checkpoints.

Heavy dependencies (torch) are imported inside functions, so importing this package is cheap.
"""

from .advantages import AdvantageMode, Advantages, compute_advantages
from .config import BackendKind, CutTurnMode, GRPOConfig, OptimConfig, RolloutConfig
from .rollout import EpisodeSpec, Trajectory, TurnSample, collect_episodes
from .train import GRPOSetup, GRPOTrainer

__all__ = ["AdvantageMode", "Advantages", "BackendKind", "CutTurnMode", "EpisodeSpec",
           "GRPOConfig", "GRPOSetup", "GRPOTrainer", "OptimConfig", "RolloutConfig", "Trajectory",
           "TurnSample", "collect_episodes", "compute_advantages"]
