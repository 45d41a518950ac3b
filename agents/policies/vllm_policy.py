"""Sample turns with vLLM's offline engine, colocated with the trainer; sync weights each step.

The same code runs on the GPU ``vllm`` package and on ``vllm-cpu``: on a machine without CUDA
the engine is started with the CPU settings vLLM needs there (float32, block size 32, a 1 GiB
KV cache unless ``VLLM_CPU_KVCACHE_SPACE`` says otherwise, the in-process ``uni`` executor).
Under ``torchrun`` every rank builds its own engine on its own GPU with vLLM's
``external_launcher`` executor (:func:`engine_placement`, as TRL's colocate mode does); building
it is then a collective, so every rank builds it at the same point. The engine's precision
is the run's (:mod:`agents.precision`), never vLLM's ``auto``.
Log-probabilities are vLLM's ``processed_logprobs`` (after temperature), the quantity the GRPO
trainer computes.

:meth:`VLLMBackend.load_weights` sends the trainer's tensors (``lm_head`` included when it is
tied to the embedding, which vLLM would otherwise keep stale; a LoRA adapter merged into its
base weights) to the engine, then drops the prefix cache:

* ``memory`` (default, colocated engine): a lazy iterator (:func:`iter_trainer_state_for_vllm`)
  goes straight to the worker's ``reload_weights(weights_iterator=...)`` through
  ``collective_rpc``, one call for the whole set (fused qkv / gate-up need their parts
  together), each tensor made only when vLLM asks for it: one FSDP2 parameter gathered, or one
  LoRA weight merged, at a time, never a second copy of the model. No file, no progress bar,
  and the one warning vLLM logs for rotary embeddings (they have no checkpoint tensor)
  filtered out;
* ``disk``: safetensors in a temporary folder + the same ``reload_weights`` from that folder
  (what an engine in another process or machine needs; slower, and the whole set is held to
  write the file).

**Sleep mode** (``VLLMEngineConfig.sleep_mode``, GPUs only): the trainer runs its update inside
:meth:`VLLMBackend.released`, which puts the engine to sleep (vLLM's level 1: weights to CPU
memory, KV cache freed) and wakes it before the sync, so the KV cache's GPU memory serves the
backward pass. vllm-cpu has no sleep mode: there the option is ignored, with one log line.

Any script that starts the engine needs an ``if __name__ == "__main__":`` guard.

Example:
    >>> policy = VLLMPolicy.from_pretrained(model_dir)         # doctest: +SKIP
    >>> policy.backend.load_weights(trainer_model)            # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from awm_gym.boundary import reraise_as
from awm_gym.vocab import coerce_enum

from ..chat_format import ChatFormatConfig, ChatRenderer
from ..errors import AgentConfigError, ModelLoadError
from ..lora import causal_lm, iter_checkpoint_state
from ..parallel.engine import gathered
from ..precision import DType
from .chat_policy import ChatPolicy
from .sampling import Generation, SamplingConfig

logger = logging.getLogger(__name__)

__all__ = ["VLLMEngineConfig", "VLLMBackend", "VLLMPolicy", "WeightSyncMode", "vllm_available",
           "trainer_state_for_vllm", "iter_trainer_state_for_vllm", "engine_placement"]

_CPU_ENV_DEFAULTS = {
    "VLLM_CPU_KVCACHE_SPACE": "1",          # GiB; without it vLLM reserves most of the RAM
    "VLLM_HOST_IP": "127.0.0.1",
    "HF_HUB_OFFLINE": "1",
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",  # engine in this process: fast start, deterministic
    "VLLM_CPU_OMP_THREADS_BIND": "nobind",
}


def vllm_available() -> bool:
    """True when the ``vllm`` package (GPU or CPU build) can be imported."""
    import importlib.util

    return importlib.util.find_spec("vllm") is not None


class WeightSyncMode(str, enum.Enum):
    """How trainer weights reach the engine (see the module docstring)."""

    MEMORY = "memory"
    DISK = "disk"

    @classmethod
    def coerce(cls, value: str | WeightSyncMode) -> WeightSyncMode:
        return coerce_enum(cls, value, field="VLLMEngineConfig.weight_sync", error=AgentConfigError)


@dataclass(frozen=True)
class VLLMEngineConfig:
    """How the colocated vLLM engine is started."""

    gpu_memory_utilization: float = 0.3
    """Fraction of GPU memory vLLM may take (the trainer shares the GPU); ignored on CPU."""
    max_model_len: int | None = None
    """Context length of the engine (None: the model's)."""
    enable_prefix_caching: bool = True
    """Reuse the KV cache of the pinned prefix across turns and group members."""
    enforce_eager: bool = True
    """Skip CUDA-graph capture / compilation (faster start; the trainer changes weights anyway)."""
    dtype: str | None = None
    """Weights dtype in the engine (None: the run's ModelConfig.dtype; never vLLM's "auto",
    which loads float32 checkpoints as bfloat16 on GPUs)."""
    seed: int = 0
    """Engine seed."""
    weight_sync: WeightSyncMode = WeightSyncMode.MEMORY
    """memory (tensors handed to the in-process engine) | disk (safetensors + reload_weights)."""
    sleep_mode: bool = True
    """Put the engine to sleep through each training update (vLLM's sleep level 1: weights to
    CPU memory, KV cache freed, both back before the weight sync), so the update can use the
    KV cache's GPU memory. CUDA only: ignored, with one log line, on CPU (vllm-cpu has none)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "weight_sync", WeightSyncMode.coerce(self.weight_sync))
        if not 0 < self.gpu_memory_utilization <= 1:
            raise AgentConfigError(f"VLLMEngineConfig.gpu_memory_utilization="
                                   f"{self.gpu_memory_utilization}: use a value in (0, 1].")


def _on_cpu() -> bool:
    import torch

    return not torch.cuda.is_available()


def iter_trainer_state_for_vllm(model: Any) -> Iterator[tuple[str, Any]]:
    """Every tensor of ``model`` by checkpoint name, ``lm_head.weight`` included, adapters
    merged, one at a time (:func:`agents.lora.iter_checkpoint_state`: under FSDP2 every rank
    must consume it, in order).

    ``state_dict()`` of a model with tied embeddings may omit ``lm_head.weight``; vLLM keeps
    the old head unless it is sent, so it is added explicitly, last.
    """
    has_head = False
    for name, tensor in iter_checkpoint_state(model):
        has_head = has_head or name == "lm_head.weight"
        yield name, tensor.contiguous()
        del tensor
    head = causal_lm(model).get_output_embeddings()
    if head is not None and not has_head:
        yield "lm_head.weight", gathered(head.weight).detach()


def trainer_state_for_vllm(model: Any) -> dict[str, Any]:
    """:func:`iter_trainer_state_for_vllm` in one dict (every tensor at once: what a
    safetensors file needs; tied weights get their own storage, which safetensors asks for).
    """
    state: dict[str, Any] = {}
    seen: set[int] = set()
    for name, tensor in iter_trainer_state_for_vllm(model):
        if tensor.data_ptr() in seen:
            tensor = tensor.clone()
        seen.add(tensor.data_ptr())
        state[name] = tensor
    return state


class _RotaryFilter(logging.Filter):
    """Drop vLLM's "RotaryEmbedding: Failed to load weights" record: a rotary embedding has no
    checkpoint tensor (its cos/sin cache is computed), and vLLM keeps it, as it should."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.getMessage().startswith("RotaryEmbedding")
                    and "Failed to load weights" in record.getMessage())


def _reload_in_worker(worker: Any, weights: Iterable[tuple[str, Any]] | None = None,
                      weights_path: str | None = None) -> None:
    """Run inside a vLLM worker (via ``collective_rpc``): reload weights in place.

    The worker's ``reload_weights`` with checkpoint-named tensors (or a folder): vLLM restores
    each layer to checkpoint format, loads the tensors through the model's own loader (fused
    qkv and gate/up included) and processes them back into kernel format. ``weights`` is
    consumed as vLLM loads: a lazy iterator makes each tensor only when it is needed.
    """
    reload_logger = logging.getLogger("vllm.model_executor.model_loader.reload.layerwise")
    quiet = _RotaryFilter()
    reload_logger.addFilter(quiet)
    try:
        if weights is not None:
            worker.reload_weights(weights_iterator=iter(weights))
        else:
            worker.reload_weights(weights_path=weights_path)
    finally:
        reload_logger.removeFilter(quiet)


def _generation_eos_ids(model_path: str) -> tuple[int, ...]:
    """The ``eos_token_id`` list of the folder's ``generation_config.json`` (none: ())."""
    from transformers import GenerationConfig

    try:
        eos = GenerationConfig.from_pretrained(model_path, local_files_only=True).eos_token_id
    except OSError:
        return ()
    return tuple(eos) if isinstance(eos, (list, tuple)) else (() if eos is None else (eos,))


def engine_placement(seed: int, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Where this process's engine runs, as ``LLM`` keyword arguments.

    One process: vLLM's in-process ``uni`` executor. Under ``torchrun`` (``WORLD_SIZE`` > 1):
    one engine per rank with vLLM's ``external_launcher`` executor, which reads ``RANK`` and
    ``LOCAL_RANK`` and puts the rank's engine on ``cuda:LOCAL_RANK`` (``uni`` would take the
    device from the string "cuda", i.e. GPU 0, on every rank, and set it in the trainer's
    process); each rank's engine gets its own seed (``seed + rank``), so the ranks' rollouts
    differ.

    Example:
        >>> engine_placement(0, {})
        {'seed': 0, 'distributed_executor_backend': 'uni'}
        >>> engine_placement(0, {"WORLD_SIZE": "2", "RANK": "1", "LOCAL_RANK": "1"})
        {'seed': 1, 'distributed_executor_backend': 'external_launcher'}
    """
    env = os.environ if environ is None else environ
    if int(env.get("WORLD_SIZE", "1")) <= 1:
        return {"seed": seed, "distributed_executor_backend": "uni"}
    return {"seed": seed + int(env.get("RANK", "0")),
            "distributed_executor_backend": "external_launcher"}


class VLLMBackend:
    """vLLM's ``LLM`` engine over token-id prompts.

    Args:
        model_path: a folder with a transformers model and tokenizer.
        sampling: temperature, top-p, max new tokens.
        engine: engine settings.

    ``eos_ids`` holds the model's generation-config EOS ids, on which vLLM stops besides the
    tokenizer's (each is stripped from the action text).
    """

    per_request_seeds = True
    """One seed per prompt is honoured on GPUs (vllm-cpu seeds torch's global generator with
    the first: its per-request generators can crash)."""

    def __init__(self, model_path: str, sampling: SamplingConfig,
                 engine: VLLMEngineConfig | None = None,
                 dtype: DType | str = DType.FLOAT32) -> None:
        engine = engine or VLLMEngineConfig()
        on_cpu = _on_cpu()
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")  # its INFO lines go to stdout
        if on_cpu:
            for key, value in _CPU_ENV_DEFAULTS.items():
                os.environ.setdefault(key, value)
        elif engine.weight_sync is WeightSyncMode.MEMORY:
            # the engine core must live in this process to receive tensors without a copy
            os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        try:
            from vllm import LLM
        except ImportError as e:
            raise ModelLoadError("vLLM is not installed: pip install 'awm-gym[vllm]' on GPU hosts "
                                 "('awm-gym[vllm-cpu]' on CPU, see docs/runtime.md), or use the "
                                 "transformers backend.") from e
        want = engine.dtype if engine.dtype is not None else DType.coerce(dtype).value
        kwargs: dict[str, Any] = dict(
            model=model_path, enforce_eager=engine.enforce_eager,
            enable_prefix_caching=engine.enable_prefix_caching, dtype=want,
            logprobs_mode="processed_logprobs", max_model_len=engine.max_model_len,
            use_tqdm_on_load=False, **engine_placement(engine.seed))
        self.sleeps = engine.sleep_mode and not on_cpu
        """Whether :meth:`released` puts the engine to sleep (sleep mode on, on a GPU)."""
        if on_cpu:
            kwargs.update(block_size=32)
            if engine.sleep_mode:
                logger.info("VLLMEngineConfig.sleep_mode ignored on CPU: vllm-cpu has no sleep "
                            "mode, so the engine keeps its memory through the update")
        else:
            kwargs.update(gpu_memory_utilization=engine.gpu_memory_utilization,
                          enable_sleep_mode=self.sleeps)
        start = time.perf_counter()
        # vLLM raises many types when a model will not load
        with reraise_as(ModelLoadError, lambda e: f"vLLM could not load {model_path!r}: {e}"):
            self.llm = LLM(**kwargs)
        logger.info("vLLM engine up in %.1fs (%s)", time.perf_counter() - start,
                    "cpu" if on_cpu else "gpu")
        self.sampling = sampling
        self.model_path = model_path
        self.on_cpu = on_cpu
        self.weight_sync = engine.weight_sync
        # a lazy iterator reaches only an engine in this process (the external launcher's, or
        # one without V1 multiprocessing); across processes it would have to be pickled whole
        self._streams = (kwargs["distributed_executor_backend"] == "external_launcher"
                         or os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING") == "0")
        self.dtype = str(self.llm.llm_engine.model_config.dtype).removeprefix("torch.")
        """The precision the engine actually computes in (``float32``, ``bfloat16``, ...)."""
        self._weights_dir: tempfile.TemporaryDirectory[str] | None = None
        self.eos_ids = _generation_eos_ids(model_path)

    def generate(self, messages: Sequence[Sequence[Mapping[str, str]]],
                 prompt_ids: Sequence[Sequence[int] | None], seed: int | Sequence[int] | None,
                 sampling: SamplingConfig | None = None) -> list[Generation]:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        if any(p is None for p in prompt_ids):
            raise ValueError("VLLMBackend needs rendered prompt ids (give ChatPolicy a renderer).")
        s = sampling or self.sampling
        seeds = (None if seed is None else [seed + k for k in range(len(prompt_ids))]
                 if isinstance(seed, int) else [int(x) for x in seed])
        per_request = seeds is not None and not self.on_cpu
        if seeds is not None and self.on_cpu and seeds:
            # vllm-cpu 0.32 can crash on per-request generators ("CPU Generator does not use
            # offset"); its in-process engine samples from torch's global generator instead
            import torch

            torch.manual_seed(seeds[0])
        params = [SamplingParams(
            n=1, temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_new_tokens,
            logprobs=0, seed=seeds[k] if per_request else None, skip_special_tokens=False)
            for k in range(len(prompt_ids))]
        outputs = self.llm.generate([TokensPrompt(prompt_token_ids=list(p)) for p in prompt_ids],
                                    params, use_tqdm=False)
        gens = []
        for p, out in zip(prompt_ids, outputs, strict=True):
            c = out.outputs[0]
            ids = tuple(int(t) for t in c.token_ids)
            logprobs = tuple(float(step[tok].logprob) for tok, step in zip(ids, c.logprobs,
                                                                          strict=True))
            reason = "length" if c.finish_reason == "length" else "stop"
            gens.append(Generation(tuple(int(t) for t in p), ids, logprobs, reason, c.text))
        return gens

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        """Within the block the engine sleeps (weights in CPU memory, KV cache freed) when
        sleep mode is on; it is awake again on exit. The trainer runs its update here; nothing
        may be generated inside."""
        if not self.sleeps:
            yield
            return
        self.llm.sleep(level=1)
        try:
            yield
        finally:
            self.llm.wake_up()

    def load_weights(self, model: Any) -> float:
        """Copy a trainer model's current weights into the engine; returns the seconds it took.

        A peft model's adapter is merged into the base weights sent (the trainer's model is
        left as it is). In memory the tensors stream: one merged or gathered at a time.
        """
        start = time.perf_counter()
        if self.weight_sync is WeightSyncMode.DISK:
            self._load_from_disk(trainer_state_for_vllm(model))
        else:
            weights: Iterable[tuple[str, Any]] = iter_trainer_state_for_vllm(model)
            if not self._streams:  # an engine in another process: the whole set, pickled
                weights = list(weights)
            self.llm.collective_rpc(_reload_in_worker, args=(weights,))
        self.llm.reset_prefix_cache()
        return time.perf_counter() - start

    def _load_from_disk(self, state: dict[str, Any]) -> None:
        from safetensors.torch import save_file

        if self._weights_dir is None:
            self._weights_dir = tempfile.TemporaryDirectory(prefix="awm-vllm-weights-")
        path = os.path.join(self._weights_dir.name, "model.safetensors")
        save_file({k: v.to("cpu").contiguous() for k, v in state.items()}, path + ".tmp")
        os.replace(path + ".tmp", path)
        self.llm.collective_rpc(_reload_in_worker, kwargs={"weights_path": self._weights_dir.name})

    def close(self) -> None:
        """Shut the engine down and delete the weight-sync folder."""
        llm = getattr(self, "llm", None)
        if llm is not None:
            engine = getattr(llm, "llm_engine", None)
            shutdown = getattr(getattr(engine, "engine_core", None), "shutdown", None)
            if callable(shutdown):
                shutdown()
            self.llm = None
        if self._weights_dir is not None:
            self._weights_dir.cleanup()
            self._weights_dir = None


class VLLMPolicy(ChatPolicy):
    """:class:`ChatPolicy` over vLLM's offline engine.

    Args:
        model_path: a folder with a transformers model and tokenizer.
        chat: the prompt format and window.
        sampling: temperature, top-p, token limits.
        engine: engine settings.
        name: the policy's name in datasets and transcripts.
    """

    def __init__(self, model_path: str, chat: ChatFormatConfig | None = None,
                 sampling: SamplingConfig | None = None, engine: VLLMEngineConfig | None = None,
                 name: str = "vllm", dtype: DType | str = DType.FLOAT32) -> None:
        from transformers import AutoConfig, AutoTokenizer

        sampling = sampling or SamplingConfig()
        tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
        config = AutoConfig.from_pretrained(model_path, local_files_only=True)
        backend = VLLMBackend(model_path, sampling, engine, dtype)
        context = (engine.max_model_len if engine and engine.max_model_len
                   else config.max_position_embeddings)
        chat = chat or ChatFormatConfig()
        super().__init__(backend, chat, sampling,
                         ChatRenderer(tokenizer, chat.chat_template_kwargs),
                         context_length=context, name=name)
        self.tokenizer = tokenizer

    @classmethod
    def from_pretrained(cls, path: str, chat: ChatFormatConfig | None = None,
                        sampling: SamplingConfig | None = None, **kwargs: Any) -> VLLMPolicy:
        """Same as the constructor (named like :meth:`HFPolicy.from_pretrained`)."""
        return cls(path, chat, sampling, **kwargs)
