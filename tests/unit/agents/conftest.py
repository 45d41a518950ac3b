"""Fixtures for the agents tests: a tiny model + tokenizer built locally (once per session).

The model is built by the library itself (:func:`agents.tiny_model.build_tiny_model` with
:meth:`~agents.tiny_model.TinyModelConfig.small`): a GRPO step on it takes about a second on one
CPU thread.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the tiny model and tokenizer (built once per session)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch

    from agents.tiny_model import TinyModelConfig, build_tiny_model

    torch.set_num_threads(1)
    return build_tiny_model(tmp_path_factory.getbasetemp() / "agents_tiny_model",
                            TinyModelConfig.small())


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_model_dir: Path):
    """The tiny model's tokenizer."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir, local_files_only=True)
