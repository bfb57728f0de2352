"""A relay for the tests: the real OpenSSH server (`sshd`) on 127.0.0.1, with a config, host key
and authorized key of its own in a temporary folder, and the test's home set up as a person's
would be to log into it (`~/.ssh/id_ed25519`, `~/.ssh/known_hosts`).

Every `sshd` started, and every process it started, is killed when the test ends.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from limits import EVENT_LIMIT

SSHD = "/usr/sbin/sshd"
WAIT = EVENT_LIMIT
"""The longest `sshd` may take to listen (on a busy machine)."""


def _children(pid: int) -> list[int]:
    """The processes `pid` started, and theirs, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, of in parents.items() if of == parent]
        found += children
        frontier += children
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def is_open(port: int) -> bool:
    """Whether something listens on 127.0.0.1:`port`."""
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class RelayServer:
    """`sshd` on 127.0.0.1 that the test's user may log into with the key in the test's home."""

    def __init__(self, folder: Path, home: Path) -> None:
        self.folder = folder
        self.home = home
        self.user = getpass.getuser()
        self.host_key = asyncssh.generate_private_key("ssh-ed25519")
        self.client_key = asyncssh.generate_private_key("ssh-ed25519")
        self.port = 0
        self.processes: list[subprocess.Popen[bytes]] = []
        self._write(folder / "host_key", self.host_key.export_private_key())
        self._write(folder / "authorized_keys", self.client_key.export_public_key())
        ssh = home / ".ssh"
        ssh.mkdir(mode=0o700, exist_ok=True)
        self._write(ssh / "id_ed25519", self.client_key.export_private_key())

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.write_bytes(data)
        path.chmod(0o600)

    @property
    def target(self) -> str:
        """What `--relay` is given: USER@127.0.0.1:PORT."""
        return f"{self.user}@127.0.0.1:{self.port}"

    def trust(self) -> None:
        """Put the relay's key in the home's known_hosts, as `ssh` does once accepted."""
        line = f"[127.0.0.1]:{self.port} {self.host_key.export_public_key().decode()}"
        self._write(self.home / ".ssh" / "known_hosts", line.encode())

    def start(self, *options: str) -> RelayServer:
        """Run `sshd` with `options` (lines of sshd_config) after the test's own; wait until it
        listens."""
        self.port = self.port or free_port()
        config = self.folder / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    *options,
                    "ListenAddress 127.0.0.1",
                    f"Port {self.port}",
                    f"HostKey {self.folder / 'host_key'}",
                    f"AuthorizedKeysFile {self.folder / 'authorized_keys'}",
                    "PidFile none",
                    "StrictModes no",
                    "UsePAM no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",
                    "GatewayPorts clientspecified",
                    "ClientAliveInterval 5",
                    "",
                ]
            )
        )
        log = (self.folder / "sshd.log").open("ab")
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        log.close()
        self.processes.append(process)
        deadline = time.monotonic() + WAIT
        while not is_open(self.port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"sshd did not listen: {self.log}")
            time.sleep(0.05)
        return self

    @property
    def log(self) -> str:
        path = self.folder / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def drop_links(self) -> None:
        """Kill every connection's process (the server goes on listening): the links drop."""
        for process in self.processes:
            for child in _children(process.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)

    def stop(self) -> None:
        for process in self.processes:
            children = _children(process.pid)
            process.kill()
            process.wait(WAIT)
            for child in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)
        self.processes.clear()


@pytest.fixture
def relay_server(
    tmp_path: Path, user_folders_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[RelayServer]:
    """A relay (not started yet: `start`) the test's home can log into; no agent."""
    if not (os.access(SSHD, os.X_OK) and shutil.which("ssh")):
        if os.environ.get("TICTACTOE_REQUIRE_SSH") == "1":
            pytest.fail("the OpenSSH server (sshd) and client (ssh) are required")
        pytest.skip("the OpenSSH server (sshd) or client (ssh) is not installed")
    with contextlib.suppress(OSError):
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    folder = tmp_path / "relay"
    folder.mkdir()
    server = RelayServer(folder, user_folders_in_tmp)
    try:
        yield server
    finally:
        server.stop()
