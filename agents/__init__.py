"""Policies and training (GRPO, SFT) for awm_gym worlds."""
