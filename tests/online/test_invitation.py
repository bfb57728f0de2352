"""The invitation: which lines it lists, from where each works, and that `ssh` takes them."""

from __future__ import annotations

import asyncio
import re
import shlex
from html import unescape
from pathlib import Path

import pytest

from limits import EVENT_LIMIT
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from snapshots.test_online_screens import Showing
from tictactoe.doors.addresses import canonical_host, global_ipv6
from tictactoe.doors.ssh import NO_TERMINAL
from tictactoe.host.hosting import HostConfig, Hosting
from tictactoe.host.invitation import Invitation, Reach, reach_of
from tictactoe.tui.screens.online import InvitationScreen

FINGERPRINT = "SHA256:4mBf3rZ1l0wq9oTQm3xWvD0yYkq8s2h5Jd7uJ6tE1aQ"


@pytest.mark.parametrize(
    ("address", "reach"),
    [
        ("192.168.1.20", Reach.NETWORK),  # RFC 1918
        ("10.0.0.7", Reach.NETWORK),
        ("100.64.1.1", Reach.NETWORK),  # a carrier's shared space (RFC 6598)
        ("fd00::2", Reach.NETWORK),  # a unique local IPv6 address (RFC 4193)
        ("fe80::1", Reach.NETWORK),  # link-local
        ("127.0.0.1", Reach.MACHINE),
        ("::1", Reach.MACHINE),
        ("8.8.8.8", Reach.PUBLIC),
        ("2a00:1450:4001:80b::200e", Reach.IPV6),
    ],
)
def test_each_address_is_said_to_work_from_where_it_can(address: str, reach: Reach) -> None:
    assert reach_of(address) is reach


def test_the_relay_comes_first_and_every_line_is_under_the_heading_of_its_reach() -> None:
    invitation = Invitation(
        code="K7M4QX",
        addresses=("127.0.0.1", "192.168.1.20", "2a00:1450:4001:80b::200e"),
        ssh_port=2222,
        web_port=8000,
        fingerprint=FINGERPRINT,
        relay=("relay.example", 41234),
    )
    assert invitation.first_line == "ssh -p 41234 K7M4QX@relay.example"
    assert invitation.ssh_lines == (
        "ssh -p 41234 K7M4QX@relay.example",
        "ssh -p 2222 K7M4QX@2a00:1450:4001:80b::200e",  # bare: ssh takes no brackets
        "ssh -p 2222 K7M4QX@192.168.1.20",
        "ssh -p 2222 K7M4QX@127.0.0.1",
    )
    assert invitation.web_addresses == (
        "http://[2a00:1450:4001:80b::200e]:8000/",
        "http://192.168.1.20:8000/",
        "http://127.0.0.1:8000/",
    )
    text = invitation.text()
    order = [
        Reach.RELAY.value,
        "  ssh -p 41234 K7M4QX@relay.example",
        Reach.IPV6.value,
        "  ssh -p 2222 K7M4QX@2a00:1450:4001:80b::200e",
        Reach.NETWORK.value,
        "  ssh -p 2222 K7M4QX@192.168.1.20",
        Reach.MACHINE.value,
        "  ssh -p 2222 K7M4QX@127.0.0.1",
        "Or open in a web browser, then give the code K7M4QX:",
        f"  {FINGERPRINT}",
    ]
    lines = text.splitlines()
    assert [line for line in lines if line in order] == order


def test_without_a_relay_the_first_line_is_the_one_that_reaches_furthest() -> None:
    invitation = Invitation(
        code="K7M4QX",
        addresses=("192.168.1.20", "8.8.8.8"),
        ssh_port=2222,
        web_port=None,
        fingerprint=FINGERPRINT,
    )
    assert invitation.first_line == "ssh -p 2222 K7M4QX@8.8.8.8"
    assert invitation.web_addresses == ()
    assert "web browser" not in invitation.text()
    assert Reach.RELAY.value not in invitation.text()


def test_only_global_ipv6_addresses_that_take_connections_are_listed() -> None:
    if_inet6 = "\n".join(
        [
            "fe8000000000000000fc00fffe000001 04 40 20 80     eth0",  # link-local
            "00000000000000000000000000000001 01 80 10 80       lo",  # loopback
            "fd000000000000000000000000000002 04 40 00 82     eth0",  # unique local
            "2a001450400108040000000000002004 02 40 00 00    wlan0",  # global, temporary too
            "2a0014504001080400000000000020aa 02 40 00 20    wlan0",  # deprecated
            "2a0014504001080400000000000020bb 02 40 00 40    wlan0",  # tentative
            "2a0014504001080400000000000020cc 02 40 00 80    wlan0",  # global, permanent
            "not a line of that file",
        ]
    )
    assert global_ipv6(if_inet6) == ["2a00:1450:4001:804::2004", "2a00:1450:4001:804::20cc"]


def test_an_address_is_compared_in_one_spelling() -> None:
    assert canonical_host("[2A00:1450:4001:0804:0000:0000:0000:2004]") == "2a00:1450:4001:804::2004"
    assert canonical_host("::ffff:192.168.1.20") == "192.168.1.20"
    assert canonical_host("Alice-Laptop.local") == "alice-laptop.local"


@pytest.mark.usefixtures("ssh")
async def test_an_ipv6_line_is_one_that_ssh_takes(tmp_path: Path) -> None:
    hosting = await Hosting("Alice", HostConfig(listen="::1", ssh_port=0, web_port=None)).start()
    try:
        (line,) = hosting.invitation.ssh_lines
        argv = shlex.split(line)
        client = await asyncio.create_subprocess_exec(
            *argv[:1],
            *("-F", "none", "-T", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no"),
            *("-o", f"UserKnownHostsFile={tmp_path / 'known_hosts'}"),
            *argv[1:],
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, said = await asyncio.wait_for(client.communicate(), EVENT_LIMIT)
        assert NO_TERMINAL in said.decode(), said  # the door answered, so ssh took the line
    finally:
        await hosting.stop("The end.")


async def test_c_copies_the_first_line_and_says_so() -> None:
    invitation = Invitation(
        code="K7M4QX",
        addresses=("192.168.1.20",),
        ssh_port=2222,
        web_port=None,
        fingerprint=FINGERPRINT,
        relay=("relay.example", 41234),
    )
    app = Showing(lambda: InvitationScreen(invitation))
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == "ssh -p 41234 K7M4QX@relay.example"
        shown = " ".join(unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).split())
        assert "Copied ssh -p 41234 K7M4QX@relay.example" in shown


async def test_any_free_port_is_the_same_on_every_address_the_doors_listen_on() -> None:
    hosting = await Hosting("Alice", HostConfig(ssh_port=0, web_port=0)).start()
    try:
        for port in (hosting.ssh_port, hosting.web_port):
            assert port
            for address in ("127.0.0.1", "::1"):  # IPv4 and IPv6: each its own socket
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection(address, port), EVENT_LIMIT
                )
                writer.close()
    finally:
        await hosting.stop("The end.")
