"""The relay, against a real `sshd` on 127.0.0.1: the host's port forward is opened, counted by
the address each friend came to the relay from, opened again when its link drops, closed with
the hosting; a relay that cannot be used is said in one sentence, and the local door stays open.

Friends are asyncssh clients from 127.0.0.2 and 127.0.0.3 (loopback too, on Linux), so that the
door can tell them apart from the relay's own connections, which come from 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import asyncssh
import pytest

from limits import EVENT_LIMIT
from online.relay_server import RelayServer, is_open
from online.relay_server import relay_server as relay_server  # the fixture
from tictactoe.doors.relay import listening_addresses
from tictactoe.doors.relay_target import parse_relay
from tictactoe.host.hosting import HostConfig, Hosting
from tictactoe.host.invitation import Invitation, Reach

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="friends from 127.0.0.2 and 127.0.0.3"
)

WAIT = EVENT_LIMIT


async def until(condition: Callable[[], object], timeout: float = WAIT) -> None:
    """Wait until `condition` holds; past `timeout`, say which condition stayed false."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not true within {timeout:.0f} s: {inspect.getsource(condition).strip()}"
            )
        await asyncio.sleep(0.02)


@dataclass
class Hosted:
    """A hosting with a relay, and every invitation it showed."""

    hosting: Hosting
    shown: list[Invitation] = field(default_factory=list)

    @property
    def invitation(self) -> Invitation:
        return self.hosting.invitation

    @property
    def relay_port(self) -> int:
        assert self.invitation.relay is not None
        return self.invitation.relay[1]

    @property
    def notices(self) -> list[str]:
        return [shown.relay_notice for shown in self.shown if shown.relay_notice]


@pytest.fixture
async def hosted(relay_server: RelayServer) -> AsyncIterator[Callable[[], Any]]:
    """Opens a hosting whose relay is the test's `sshd`; stopped when the test ends."""
    opened: list[Hosted] = []

    async def open_hosting() -> Hosted:
        config = HostConfig(
            listen="127.0.0.1", ssh_port=0, web_port=None, relay=parse_relay(relay_server.target)
        )
        hosting = Hosting("Alice", config)
        hosted = Hosted(hosting)
        hosting.invitation_changed = hosted.shown.append
        opened.append(hosted)
        await hosting.start()
        return hosted

    try:
        yield open_hosting
    finally:
        for hosted in opened:
            await hosted.hosting.stop("The end.")


async def friend(port: int, user: str, source: str) -> asyncssh.SSHClientConnection:
    """A friend who logs in to 127.0.0.1:`port` from `source` as `user` (the code)."""
    return await asyncio.wait_for(
        asyncssh.connect(
            "127.0.0.1",
            port,
            username=user,
            local_addr=(source, 0),
            known_hosts=None,
            client_keys=None,
            agent_path=None,
            config=None,
        ),
        WAIT,
    )


async def test_a_friend_logs_in_through_the_relay_which_closes_with_the_hosting(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start()
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: series.invitation.relay is not None)
    assert series.invitation.relay == ("127.0.0.1", series.relay_port)
    assert series.invitation.relay_notice == ""
    assert series.invitation.relay_anywhere  # the relay's kernel says it listens on all
    assert f"{Reach.RELAY.value}\n  {series.invitation.first_line}" in series.invitation.text()
    assert series.invitation.first_line == (
        f"ssh -p {series.relay_port} {series.hosting.code}@127.0.0.1"
    )
    bob = await friend(series.relay_port, series.hosting.code, "127.0.0.3")
    assert bob.get_extra_info("server_version").startswith("SSH-2.0-AsyncSSH")  # the host's door
    bob.close()

    await series.hosting.stop("The end.")
    await until(lambda: not is_open(series.relay_port))


async def test_a_relayed_friend_counts_as_the_address_the_relay_saw(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start()
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: series.invitation.relay is not None)
    door = series.hosting.ssh_door
    assert door is not None
    strangers = []
    try:
        for _ in range(door.max_logging_in_per_address):  # each sits at the login, silent
            stranger = socket.socket()
            stranger.bind(("127.0.0.2", 0))
            stranger.connect(("127.0.0.1", series.relay_port))
            strangers.append(stranger)
        await until(lambda: door.logging_in == door.max_logging_in_per_address)
        # Bob comes through the same relay from another address: he is let in.
        bob = await friend(series.relay_port, series.hosting.code, "127.0.0.3")
        bob.close()
        # One more from the strangers' address takes the place of their oldest silent one.
        again = await friend(series.relay_port, series.hosting.code, "127.0.0.2")
        again.close()
        oldest = strangers[0]
        oldest.settimeout(5)
        while oldest.recv(4096):  # the door's version line, then the end: dropped
            pass
        assert door.logging_in <= door.max_logging_in_per_address
    finally:
        for stranger in strangers:
            stranger.close()
    await until(lambda: not door.relayed)  # each relayed connection is forgotten once closed


async def test_when_the_link_drops_the_relay_opens_again_and_shows_its_new_line(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start()
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: series.invitation.relay is not None)
    first = series.relay_port

    relay_server.drop_links()
    await until(lambda: any("dropped" in notice for notice in series.notices))
    await until(lambda: series.invitation.relay is not None)
    assert series.invitation.relay_notice == ""
    again = series.relay_port
    bob = await friend(again, series.hosting.code, "127.0.0.3")
    bob.close()
    assert f"ssh -p {again} " in series.invitation.first_line
    assert again == first or not is_open(first)


async def test_an_unknown_relay_key_is_said_in_a_sentence_and_taken_once_accepted(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start()  # its key is not in known_hosts
    series: Hosted = await hosted()
    await until(lambda: "not known" in series.invitation.relay_notice)
    assert series.invitation.relay is None
    assert series.invitation.relay_notice == (
        f"The relay's key is not known here: run ssh -p {relay_server.port}"
        f" {relay_server.user}@127.0.0.1 once in another terminal and accept it, and the relay"
        " opens by itself."
    )
    bob = await friend(series.hosting.ssh_port, series.hosting.code, "127.0.0.3")  # the door
    bob.close()

    relay_server.trust()  # as `ssh` does when the host answers yes
    await until(lambda: series.invitation.relay is not None)


async def test_a_refused_forward_is_said_in_a_sentence_and_the_local_door_stays(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start("AllowTcpForwarding no")
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: "refused" in series.invitation.relay_notice)
    assert series.invitation.relay is None
    assert series.invitation.relay_notice == (
        f"The relay {relay_server.target} refused to forward a port to this game (its sshd needs"
        " AllowTcpForwarding yes and GatewayPorts clientspecified)."
    )
    assert series.invitation.first_line.startswith(f"ssh -p {series.hosting.ssh_port} ")
    bob = await friend(series.hosting.ssh_port, series.hosting.code, "127.0.0.3")
    bob.close()


async def test_a_relay_that_listens_on_its_loopback_only_is_no_line_and_says_what_to_set(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    """sshd without GatewayPorts says yes to the forward and listens on its own loopback: the
    invitation does not offer it to friends elsewhere, and says what to set."""
    relay_server.start("GatewayPorts no")
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: "loopback only" in series.invitation.relay_notice)
    assert series.invitation.relay is None
    assert "through the relay" not in series.invitation.text()
    notice = series.invitation.relay_notice
    assert notice.startswith(f"The relay {relay_server.target} listens on port ")
    assert "set GatewayPorts clientspecified (or yes) in its sshd_config" in notice
    assert series.invitation.first_line.startswith(f"ssh -p {series.hosting.ssh_port} ")
    bob = await friend(series.hosting.ssh_port, series.hosting.code, "127.0.0.3")  # the door
    bob.close()


async def test_a_relay_that_cannot_be_asked_where_it_listens_is_headed_with_what_it_needs(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    relay_server.start("ForceCommand /bin/false")  # no command runs there: forwards still do
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: series.invitation.relay is not None)
    assert not series.invitation.relay_anywhere
    assert Reach.RELAY.value not in series.invitation.text()
    assert f"{Reach.RELAY_UNSURE.value}\n  {series.invitation.first_line}" in (
        series.invitation.text()
    )


def test_the_relay_s_listening_sockets_are_read_from_its_kernel_s_tables() -> None:
    table = "\n".join(
        [
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid",
            "   0: 0100007F:A0F4 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0",
            "   1: 00000000:A0F5 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0",
            "   2: 0100007F:A0F5 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0",
            "   3: 0A00000A:A0F6 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0",
            "  sl  local_address                         remote_address                        st",
            "   0: 00000000000000000000000001000000:A0F4 00000000000000000000000000000000:0000 0A",
            "   1: 00000000000000000000000000000000:A0F5 00000000000000000000000000000000:0000 0A",
            "   2: 0000000000000000FFFF00000100007F:A0F7 00000000000000000000000000000000:0000 0A",
            "cat: /proc/net/tcp6: No such file or directory",
        ]
    )
    loopback = [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")]
    assert listening_addresses(table, 0xA0F4) == loopback
    assert listening_addresses(table, 0xA0F5) == [  # the connected socket is not listening
        ipaddress.ip_address("0.0.0.0"),
        ipaddress.ip_address("::"),
    ]
    assert listening_addresses(table, 0xA0F6) == [ipaddress.ip_address("10.0.0.10")]
    assert listening_addresses(table, 0xA0F7) == [ipaddress.ip_address("127.0.0.1")]
    assert listening_addresses(table, 22) == []
    assert listening_addresses("This account is not available.", 0xA0F4) == []


async def test_a_login_the_relay_refuses_is_said_in_a_sentence(
    relay_server: RelayServer, hosted: Callable[[], Any]
) -> None:
    (relay_server.folder / "authorized_keys").write_text("")
    relay_server.start()
    relay_server.trust()
    series: Hosted = await hosted()
    await until(lambda: "log in" in series.invitation.relay_notice)
    assert series.invitation.relay_notice == (
        f"The relay {relay_server.target} did not let you log in with your SSH keys or agent:"
        f" ssh -p {relay_server.port} {relay_server.user}@127.0.0.1 must work without a"
        " password."
    )
