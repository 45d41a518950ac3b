"""Which instance a shard's caller blames for a death, and when that naming may be world code's
own progress frame (awm_gym/envs/process_shard.py ``StepDeadlines``; issue 42, class 3)."""

from __future__ import annotations

import pytest

from awm_gym.envs.config import EnvConfig
from awm_gym.envs.process_shard import StepDeadlines
from awm_gym.envs.reply_bounds import LOADING, VERIFYING


@pytest.mark.parametrize(("reported", "culprit", "may_be_forged"), [
    ([], None, False),
    ([0], 0, False),               # the request's first frame: the worker's own
    ([2], 2, False),
    ([0, 2], 2, True),              # position 0's code ran first: it may have written "2"
    ([LOADING, 0], 0, True),        # a world's code ran at its loading
    ([1, VERIFYING], 1, False),     # a death while verifying blames the last action
    ([0, 2, VERIFYING], 2, True),
    ([LOADING], LOADING, False),    # no position to confirm: the shard's episodes are lost
])
def test_a_culprit_is_in_doubt_only_after_other_world_code_ran(
        reported: list[int], culprit: int | None, may_be_forged: bool) -> None:
    progress = StepDeadlines(EnvConfig())
    for pos in reported:
        progress(pos)
    assert progress.reported == reported
    assert (progress.culprit, progress.may_be_forged) == (culprit, may_be_forged)
