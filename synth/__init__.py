"""Synthesis pipeline (AWM stages) against any OpenAI-compatible endpoint."""
