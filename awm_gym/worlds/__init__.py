"""World sets on disk: reading the AWM files, building template databases, the clock, splits."""

from __future__ import annotations

from awm_gym.worlds.clock import FrozenClock
from awm_gym.worlds.exclusions import Exclusions, load_exclusions
from awm_gym.worlds.records import CODE_VERIFIER_FILE, SQL_VERIFIER_FILE
from awm_gym.worlds.splits import Split, Subset, load_split, split_worlds, world_set_hash
from awm_gym.worlds.template_db import build_template_db
from awm_gym.worlds.verifier_modes import ENTRY_FUNCTIONS
from awm_gym.worlds.world_set import (
    SampleTable,
    Solution,
    SolutionCall,
    TableDef,
    VerifierDef,
    WorldDef,
    WorldSet,
    load_world_set,
    normalize_scenario_name,
)

__all__ = ["FrozenClock", "Exclusions", "load_exclusions", "Split", "Subset", "load_split",
           "split_worlds", "world_set_hash", "build_template_db", "SampleTable", "Solution",
           "SolutionCall", "TableDef", "VerifierDef", "WorldDef", "WorldSet", "load_world_set",
           "normalize_scenario_name", "CODE_VERIFIER_FILE", "SQL_VERIFIER_FILE", "ENTRY_FUNCTIONS"]
