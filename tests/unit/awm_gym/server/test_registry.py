"""awm_gym/server/registry.py: the server of each protocol is registered, never imported by
server/; the ``awm`` command (the composition root) imports the integrations that register."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from awm_gym.errors import AWMGymError
from awm_gym.server import ServerConfig, register_server
from awm_gym.server.registry import _FACTORIES, make_server, registered_protocols


@pytest.fixture
def registry():
    saved = dict(_FACTORIES)
    yield
    _FACTORIES.clear()
    _FACTORIES.update(saved)


def test_a_registered_factory_makes_the_server_of_its_protocol(registry) -> None:
    made: list[ServerConfig] = []
    register_server("openenv", lambda config: made.append(config) or "the server")
    config = ServerConfig(world="spotify", protocol="openenv")
    assert make_server(config) == "the server" and made == [config]


def test_an_unregistered_protocol_names_what_to_import(registry) -> None:
    _FACTORIES.pop("openenv", None)
    with pytest.raises(AWMGymError, match=re.escape(
            "ServerConfig.protocol='openenv': no server is registered for it (have: 'awm'). "
            "Import its integration first (e.g. `import awm_gym.integrations.openenv`)")):
        make_server(ServerConfig(world="spotify", protocol="openenv"))


def test_server_imports_no_integration_and_the_awm_command_registers_openenv() -> None:
    code = ("import sys, awm_gym.server.runner, awm_gym.server.cli; "
            "from awm_gym.server.registry import registered_protocols as r; before = r(); "
            "import awm_gym.cli; awm_gym.cli.build_parser(); "
            "print(before, r(), sorted(m for m in ('openenv', 'starlette', 'uvicorn', "
            "'awm_gym.integrations.openenv.server', 'awm_gym.remote.runtime') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # registering loads nothing of openenv-core, and the parser loads no server or env stack
    assert out.stdout.split() == ["('awm',)", "('awm',", "'openenv')", "[]"]


def test_the_built_in_protocol_is_always_there() -> None:
    assert "awm" in registered_protocols()
