"""Run ``awm env start`` in a child process and wait until it serves (scripts, notebooks, tests).

:func:`~awm_gym.server.serve` wants the main thread (tool timeouts rely on ``SIGALRM``), so a
program that needs its own main thread starts the server as a process instead. The child binds
the port itself (``port=0`` picks a free one, without the bind-then-close race) and prints its
address when ready; :class:`ServerProcess` reads it.

Example::

    with ServerProcess(ServerConfig(world="spotify", port=0)) as server:
        envs = gym.make_vec("AWM/remote-v0", num_envs=8, url=server.url)
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from typing import IO, Any

from awm_gym.errors import AWMGymError
from awm_gym.server.config import ServerConfig
from awm_gym.wire.auth import AUTH_TOKEN_ENV

__all__ = ["ServerProcess", "server_arguments"]

_READY = re.compile(r"^serving \S+ at (\S+) ")


def server_arguments(config: ServerConfig) -> list[str]:
    """The ``awm env start`` arguments that reproduce ``config``.

    Raises:
        ValueError: ``config.env`` sets a field the command line does not expose.
    """
    from awm_gym.envs.config import EnvConfig
    from awm_gym.server.cli import START_ENV_FIELDS, start_flag

    args: list[str] = []
    for name, spec in ServerConfig.__dataclass_fields__.items():
        if name == "auth_token":
            continue  # a secret goes through the environment, never the command line
        value = getattr(config, name)
        if name != "env" and value != spec.default and value is not None:
            args += [start_flag(name), str(value)]
    default_env = EnvConfig()
    for name in EnvConfig.__dataclass_fields__:
        value = getattr(config.env, name)
        if value == getattr(default_env, name):
            continue
        if name not in START_ENV_FIELDS:
            raise ValueError(f"ServerConfig.env.{name}={value!r} cannot be passed to `awm env "
                             f"start`; it sets only {', '.join(sorted(START_ENV_FIELDS))}.")
        args += [start_flag(f"env.{name}"), str(value)]
    return args


class ServerProcess:
    """``awm env start`` for ``config`` in a child process; :attr:`url` once it serves.

    Args:
        config: what to serve.
        start_timeout_s: how long to wait for the ready line.
        stderr: where the server's logs go (default: this process's stderr).

    Raises:
        AWMGymError: the server exited or stayed silent during start-up.
    """

    url: str
    process: subprocess.Popen

    def __init__(self, config: ServerConfig, *, start_timeout_s: float = 120.0,
                 stderr: IO[Any] | int | None = None) -> None:
        command = [sys.executable, "-m", "awm_gym.cli", "env", "start",
                   *server_arguments(config)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr,
                                        stdin=subprocess.DEVNULL, text=True,
                                        env=dict(os.environ, PYTHONUNBUFFERED="1",
                                                 **({AUTH_TOKEN_ENV: config.auth_token}
                                                    if config.auth_token else {})))
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(start_timeout_s)
        match = _READY.match(lines[0]) if lines else None
        if match is None:
            code = self.process.poll()
            self.close()
            what = (f"exited with status {code}" if code is not None else
                    f"printed no ready line within {start_timeout_s:g} s")
            raise AWMGymError(f"`awm env start` {what} (got {lines[:1]!r}); its log says why.")
        self.url = match.group(1)

    def __repr__(self) -> str:
        return f"ServerProcess({getattr(self, 'url', None)}, pid={self.process.pid})"

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self, timeout_s: float = 15.0) -> int:
        """Stop the server (SIGINT, then SIGKILL after ``timeout_s``); returns its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode
