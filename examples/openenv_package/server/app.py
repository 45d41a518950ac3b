"""The package's ASGI app: one AWM world on OpenEnv's server (``AWM_WORLD``, default spotify).

The same app as ``awm env start spotify --protocol openenv`` (awm_gym.integrations.openenv.server),
for OpenEnv tooling that starts a package with ``uvicorn server.app:app``.
"""

from __future__ import annotations

import os

from awm_gym.integrations.openenv.server import OpenEnvWorldServer
from awm_gym.server import ServerConfig

server = OpenEnvWorldServer(ServerConfig(world=os.environ.get("AWM_WORLD", "spotify"),
                                         protocol="openenv"))
app = server.app
