"""Bridges to other ecosystems' environment and trainer APIs (OpenEnv, TRL, verifiers, Ray).

Each bridge lives in its own subpackage and imports its third-party library only when used, so
``import awm_gym`` never needs the extras (``pip install "awm-gym[openenv]"``, ...).
"""
