"""A friend's move through a relay beside the same move through the direct door, in one run, on
loopback.

    uv run python benchmarks/bench_relay.py              # 8 matches, 40 moves: about 45 s
    uv run python benchmarks/bench_relay.py --matches 4  # rougher

A real OpenSSH server (`/usr/sbin/sshd`, its own config, host key and authorized key in a
temporary folder, `GatewayPorts clientspecified`) listens on 127.0.0.1 as the relay.
`tictactoe host --relay USER@127.0.0.1:PORT --listen 127.0.0.1 --ssh-port 0 --no-web` runs in a
pseudo-terminal of 100 x 32 with a home folder of its own (the key that logs into the relay, the
relay's key in known_hosts). Bob comes in with the real OpenSSH client, by the relay's line and
by the door's own line in turn: after each match his `ssh` is killed, and he takes his seat back
by the other line before the next match. A match is as in `bench_online.py` (7 8 5 9 3, the
chooser first); a move is timed from writing its digit to the mover's terminal until the other
seat's terminal shows the move's line. Through the relay, Bob's bytes go ssh -> sshd -> the host's
SSH link to sshd -> the door: on loopback, the figure is what the relay's forwarding itself costs;
a real relay adds its round trip (README: A friend on another network).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
from bench_online import CELLS, MOVES, Terminal, percentile, timed_move

SSHD = "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def descendants(pid: int) -> list[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        of = frontier.pop()
        children = [child for child, parent in parents.items() if parent == of]
        found += children
        frontier += children
    return found


def start_relay(folder: Path, home: Path) -> tuple[subprocess.Popen[bytes], int]:
    """sshd on 127.0.0.1 that `home`'s key logs into; the process and its port."""
    host_key, client_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    port = free_port()
    files = {
        folder / "host_key": host_key.export_private_key(),
        folder / "authorized_keys": client_key.export_public_key(),
        home / ".ssh" / "id_ed25519": client_key.export_private_key(),
        home / ".ssh" / "known_hosts": f"[127.0.0.1]:{port} ".encode()
        + host_key.export_public_key(),
    }
    (home / ".ssh").mkdir(mode=0o700)
    for path, data in files.items():
        path.write_bytes(data)
        path.chmod(0o600)
    config = folder / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile none\nStrictModes no\n"
        "UsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "GatewayPorts clientspecified\n"
    )
    with contextlib.suppress(OSError):
        Path("/run/sshd").mkdir(exist_ok=True)
    log = (folder / "sshd.log").open("wb")
    relay = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
    deadline = time.monotonic() + 10
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        if relay.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"sshd did not start: {(folder / 'sshd.log').read_text()}")
        time.sleep(0.05)
    return relay, port


def stop_relay(relay: subprocess.Popen[bytes]) -> None:
    children = descendants(relay.pid)
    relay.kill()
    relay.wait()
    for child in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8, help="5 timed moves each")
    args = parser.parse_args()
    if shutil.which("ssh") is None or not os.access(SSHD, os.X_OK):
        raise SystemExit("the OpenSSH client (ssh) and server (/usr/sbin/sshd) are needed")

    home = Path(tempfile.mkdtemp(prefix="bench-relay-"))
    (home / "relay").mkdir()
    relay, relay_port = start_relay(home / "relay", home)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "SSH_AUTH_SOCK")}
    env.update(
        TERM="xterm-256color",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
    )
    host = Terminal(
        [
            *(sys.executable, "-m", "tictactoe", "host", "--player1", "Alice", "--no-save"),
            *("--no-web", "--listen", "127.0.0.1", "--ssh-port", "0"),
            *("--relay", f"{getpass.getuser()}@127.0.0.1:{relay_port}"),
        ],
        env,
    )
    bob: Terminal | None = None
    times: dict[str, list[float]] = {"relay": [], "direct": []}
    try:
        found = host.expect(r"through the relay:[ █]+ssh -p (\d+) ([A-Z0-9]+)@127\.0\.0\.1")
        ports = {"relay": found[1]}
        code = found[2]
        ports["direct"] = host.expect(r"On this machine only:[ █]+ssh -p (\d+) ")[1]
        seats = {"Alice": host}
        chooser, other = "Alice", "Bob"
        other_of = {"Alice": "Bob", "Bob": "Alice"}
        for match in range(args.matches):
            path = "relay" if match % 2 == 0 else "direct"
            host.from_now()
            bob = Terminal(
                [
                    *("ssh", "-tt", "-F", "none", "-o", "StrictHostKeyChecking=accept-new"),
                    *("-o", f"UserKnownHostsFile={home / 'friend_known_hosts'}"),
                    *("-o", "BatchMode=yes", "-o", "LogLevel=ERROR"),
                    *("-p", ports[path], f"{code}@127.0.0.1"),
                ],
                env,
            )
            bob.expect("Your name", host)
            bob.from_now()
            os.write(bob.fd, b"Bob\r")
            seats["Bob"] = bob
            if match:  # his seat back, then the next match
                host.expect("Bob is back", bob)
                host.settle(bob)
                os.write(seats[other].fd, b"n")
            seats[chooser].expect(f"{chooser}, choose your mark", seats[other])
            seats[chooser].settle(seats[other])
            seats[chooser].from_now()
            seats[other].from_now()
            os.write(seats[chooser].fd, b"x")
            seats[other].expect(rf"{chooser} \(X\) to move", seats[chooser])
            mover = chooser
            for number, key in enumerate(MOVES, start=1):
                mark = "X" if mover == chooser else "O"
                line = f"{number}. {mover} {mark} {CELLS[key]}"
                moved = timed_move(seats[mover], seats[other_of[mover]], key, line)
                times[path].append(moved[1])
                mover = other_of[mover]
            seats[chooser].expect(f"{chooser} wins!", seats[other])
            print(
                f"match {match + 1} ({path}): moves in ms",
                [round(t * 1000, 1) for t in times[path][-5:]],
            )
            host.settle(bob)
            host.from_now()
            bob.stop(signal.SIGKILL)  # he comes back by the other line
            bob = None
            host.expect("Bob's connection dropped")
            chooser, other = other, chooser
    finally:
        if bob is not None:
            bob.stop(signal.SIGKILL)
        host.stop()
        stop_relay(relay)
        shutil.rmtree(home, ignore_errors=True)

    print()
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    print("a friend's move, key on one seat's terminal -> drawn on the other seat's, loopback:")
    for path, label in (
        ("direct", "by the door's own line"),
        ("relay", "through the relay (sshd)"),
    ):
        values = [t * 1000 for t in times[path]]
        print(
            f"  {label}: {len(values)} moves, median {statistics.median(values):.1f} ms,"
            f" p95 {percentile(values, 0.95):.1f} ms, worst {max(values):.1f} ms"
        )
    added = statistics.median(times["relay"]) - statistics.median(times["direct"])
    print(f"  the relay adds (medians): {added * 1000:.1f} ms")


if __name__ == "__main__":
    main()
