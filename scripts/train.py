#!/usr/bin/env python
"""``awm train`` as a script: build/SFT/GRPO/evaluate (every TrainConfig field is an option).

Usage: python scripts/train.py [--<part>.<field> VALUE ...]     (see --help)
"""

import sys

from agents.cli import main_train

if __name__ == "__main__":  # vLLM's engine needs the guard
    sys.exit(main_train())
