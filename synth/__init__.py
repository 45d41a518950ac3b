"""Synthesis pipeline (AWM stages) against any OpenAI-compatible endpoint.

Stages write AWM-format world sets with execution-based self-correction; see
:mod:`synth.pipeline` and docs/synthesis.md.
"""

from __future__ import annotations

import logging

from .config import EmbeddingConfig, SynthConfig, SynthLLM
from .context import StageReport
from .errors import GenerationError, ProviderError, SynthConfigError, SynthError
from .pipeline import STAGE_ORDER, run_pipeline

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "EmbeddingConfig", "GenerationError", "ProviderError", "STAGE_ORDER", "StageReport",
    "SynthConfig", "SynthConfigError", "SynthError", "SynthLLM", "run_pipeline",
]
