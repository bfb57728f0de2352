"""A handle the club refuses is told why, in one sentence, on the real `ssh`, not only "Permission
denied": whether or not the client may fall back on keyboard-interactive (where a login without a
key would be a guest's), on 127.0.0.1.

OpenSSH's client itself refuses a user name that begins with `-` ("remote username contains
invalid characters"), so such a handle is asked for with asyncssh's client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import asyncssh
import pytest

from club.test_club_end_to_end import Club, open_club
from club.test_club_hostile import in_a_thread, ssh_line
from online.test_end_to_end import Terminal
from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)
from tictactoe.core.club import BadHandle, handle_of

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]

TOO_LONG = "a" * 25


def why(user: str) -> str:
    """The club's sentence for `user`, which is no handle."""
    with pytest.raises(BadHandle) as refused:
        handle_of(user)
    return str(refused.value)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    running = open_club(tmp_path_factory.mktemp("club"))
    try:
        yield running
    finally:
        running.close()


@pytest.mark.parametrize("user", ["a..b", TOO_LONG])
@pytest.mark.parametrize("keyboard", [True, False], ids=["keyboard-interactive", "keys only"])
def test_a_refused_handle_is_told_why_on_the_real_ssh(
    club: Club, user: str, keyboard: bool
) -> None:
    line = ssh_line(club, user, "alice")
    if not keyboard:
        line[1:1] = ["-o", "KbdInteractiveAuthentication=no"]
    refused = Terminal(line)
    club.players.append(refused)
    assert refused.finish() != 0
    assert why(user) in refused.text, refused.text
    assert "Open tables" not in refused.text  # no game was started for it


def test_a_handle_beginning_with_a_dash_cannot_be_claimed() -> None:
    assert "begin" in why("-x")
    assert "begin" in why("-")
    assert handle_of("x-") == "x-"  # a dash elsewhere is a handle's


def test_a_handle_beginning_with_a_dash_is_told_why(club: Club) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")

    async def login() -> str:
        async with asyncssh.connect(
            "127.0.0.1",
            club.port,
            username="-x",
            client_keys=[key],
            known_hosts=None,
            config=None,
            agent_path=None,
            password_auth=False,
            kbdint_auth=False,
        ) as connection:
            done = await connection.run(term_type="xterm", check=False, timeout=30)
            return done.stderr if isinstance(done.stderr, str) else ""

    said = in_a_thread(lambda: asyncio.wait_for(login(), 60))()
    assert said.strip() == why("-x")
