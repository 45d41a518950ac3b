"""Memory that must not grow with vocabulary x tokens (issue 34): the HF sampler's log-probs
(agents/policies/hf_policy.py) and the loss's log-probs and entropy (agents/grpo/loss.py).

A random-initialised Llama with a 32k vocabulary and a width of 16 makes the (tokens, vocab)
tensors dominate. :class:`LiveTensorBytes` counts the bytes of every tensor storage created
while it is active and still alive after each op (a dispatch mode: torch has no CPU allocator
statistics), so ``peak`` is the most memory the code under test held at once.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from torch.multiprocessing.reductions import StorageWeakRef  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from agents.grpo.batching import TrainSample, collate  # noqa: E402
from agents.grpo.loss import token_logprobs  # noqa: E402
from agents.policies.hf_policy import HFBackend  # noqa: E402
from agents.policies.sampling import SamplingConfig  # noqa: E402

VOCAB = 32_768
ROWS = 4
FLOAT32 = 4


class LiveTensorBytes(TorchDispatchMode):
    """Bytes of the tensor storages created under this mode and still alive; their peak.

    After each op, storages that died are subtracted and the op's new outputs added (an output
    sharing an input's storage, a view or an in-place result, is no new memory).
    """

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[int, tuple[Any, int]] = {}  # storage id -> (weak ref, bytes)
        self.current = 0
        self.peak = 0
        self.largest = 0
        """The largest single storage created."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = {t.untyped_storage()._cdata for t in tree_flatten((args, kwargs))[0]
                  if isinstance(t, torch.Tensor)}
        for key in [k for k, (ref, _) in self._live.items() if ref.expired()]:
            self.current -= self._live.pop(key)[1]
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            if storage._cdata in inputs or storage._cdata in self._live:
                continue
            self._live[storage._cdata] = (StorageWeakRef(storage), storage.nbytes())
            self.current += storage.nbytes()
            self.largest = max(self.largest, storage.nbytes())
        self.peak = max(self.peak, self.current)
        return out


def _big_vocab_llama() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=256,
        bos_token_id=None, eos_token_id=None, pad_token_id=0)
    return transformers.LlamaForCausalLM(config).float()


def test_sampler_memory_does_not_grow_with_new_tokens(tiny_tokenizer):
    model = _big_vocab_llama()
    prompts = [list(range(1, 6 + 3 * row)) for row in range(ROWS)]  # left-padded to 14
    peaks, largest = {}, {}
    for new_tokens in (16, 64):
        backend = HFBackend(model, tiny_tokenizer,
                            SamplingConfig(temperature=0.7, max_new_tokens=new_tokens))
        backend.eos_ids = [VOCAB - 1]  # past the tokenizer's ids: no row ends early (likely)
        with LiveTensorBytes() as memory:
            gens = backend.generate([[]] * ROWS, prompts, seed=0)
        assert sum(len(g.completion_ids) for g in gens) > ROWS * new_tokens // 2
        peaks[new_tokens], largest[new_tokens] = memory.peak, memory.largest
    one_step = ROWS * VOCAB * FLOAT32  # one (B, V) float32 tensor: 0.5 MB
    # output_scores kept a (B, V) tensor per step and stacked them: 25 MB at 16 tokens, 100 at 64
    assert largest[64] <= one_step, largest
    assert peaks[64] < 1.25 * peaks[16], peaks
    assert peaks[64] < 8 * one_step, peaks


@pytest.mark.parametrize("with_entropy", [False, True])
def test_loss_memory_beyond_the_logits_does_not_grow_with_tokens(with_entropy):
    model = _big_vocab_llama()
    g = torch.Generator().manual_seed(1)
    samples = [TrainSample(tuple(torch.randint(1, VOCAB, (4 + row,), generator=g).tolist()),
                           tuple(torch.randint(1, VOCAB, (64 - 3 * row,), generator=g).tolist()),
                           1.0, ()) for row in range(ROWS)]
    batch = collate(samples, pad_id=0)
    tokens = int(batch.loss_mask.sum())  # N = 238
    with LiveTensorBytes() as memory:
        logp, _ = token_logprobs(model, batch, 0.7, with_entropy=with_entropy, chunk_tokens=8)
        logp.sum().backward()
        logits = memory.largest  # (B, T - first, V) float32: the model's own, and its gradient
    beyond = memory.peak - 2 * logits
    # the old float copy, log_softmax and exp were each (N, V): 2-3 of them beyond the logits
    assert beyond < tokens * VOCAB * FLOAT32 / 4, (beyond, logits)
