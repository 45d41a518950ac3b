"""Data parallel training on torch's own engines: the process group, DDP / FSDP2, and the glue.

Launched by ``torchrun``; one room for everything that knows there are several ranks:

* :mod:`.process_group`: join the group torchrun describes (with a timeout), who this rank is;
* :mod:`.collectives`: the few scalars and objects ranks exchange (counts, rewards, episodes);
* :mod:`.sharding`: which groups, episodes and examples a rank runs;
* :mod:`.config`: :class:`ParallelConfig` (strategy, timeout) and the up-front checks;
* :mod:`.engine`: wrap a model in ``DistributedDataParallel`` or shard it with ``fully_shard``,
  equal micro-batch counts on every rank, full tensors for saving and weight sync.

The trainer (:mod:`agents.grpo`), SFT and the evaluation call these; nothing here knows GRPO.
"""

from .collectives import all_gather_objects, all_reduce, gather_objects
from .config import ParallelConfig, ParallelStrategy, check_parallel
from .engine import full_state_dict, gradient_scale, gradient_sync, wrap_for_training
from .process_group import DistInfo, barrier, choose_backend, init_distributed
from .sharding import shard_evenly, shard_groups

__all__ = ["DistInfo", "ParallelConfig", "ParallelStrategy", "all_gather_objects",
           "all_reduce", "gather_objects", "barrier", "check_parallel", "choose_backend",
           "full_state_dict", "gradient_scale", "gradient_sync", "init_distributed", "shard_evenly",
           "shard_groups",
           "wrap_for_training"]
