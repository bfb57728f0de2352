"""A key joins a handle only from the hand that holds it, with the real `ssh` on 127.0.0.1.

A public key line proves nothing: anyone can copy another's `.pub` file. Mallory pasting
Alice's line must add nothing, and a ban of Mallory must never refuse Alice. A key joins a handle
through a login made with it (`HANDLE+WORD`, the word `k` gave in a session of the handle), and
the owner sees and removes keys (`club keys`, `club unkey`).
"""

from __future__ import annotations

import json

import pytest

from online.test_ssh_door import ssh as ssh  # the fixture: no `ssh`, no test (unless CI)

from .test_club_end_to_end import Club, owner
from .test_club_end_to_end import club as club  # the fixture: a club running in its terminal

pytestmark = [pytest.mark.usefixtures("ssh"), pytest.mark.slow]


def public_line(club: Club, name: str) -> bytes:
    """The `.pub` line of the key called `name`, as anyone who saw it could paste it."""
    return club.key(name).with_suffix(".pub").read_bytes().strip()


def fingerprints(club: Club, handle: str) -> list[str]:
    done = owner(club, "keys", handle, "--json")
    assert done.returncode == 0, done.stderr
    return [row["fingerprint"] for row in json.loads(done.stdout)]


def test_a_pasted_key_line_adds_nothing_and_a_ban_spares_its_owner(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    alice.expect("Open tables")
    mallory = club.ssh("mallory", "mallory")
    mallory.expect("Open tables")

    mallory.from_now().send(b"k")  # what she is shown to add a key, whatever it is
    mallory.expect("Add a key to mallory")
    mallory.send(b"\x1b[200~" + public_line(club, "alice") + b"\x1b[201~")  # Alice's line
    mallory.from_now().send(b"\r")  # Enter closes the dialog
    mallory.expect("o Open p Pair")  # the lobby's keys again
    alice.from_now()
    mallory.send(b"o\r")  # a table: the club answers her asks in order, this one after the paste
    alice.expect(r"mallory 1500 ± \d+ Classic · open")
    mallory.send(b"q")  # her table closes as she goes
    assert mallory.finish() == 0

    thief = club.ssh("mallory", "alice")  # Alice's key does not sign in as mallory
    thief.expect(r"The handle mallory belongs to another key[^.]*\.")
    assert thief.finish() == 1
    assert len(fingerprints(club, "mallory")) == 1

    assert owner(club, "ban", "mallory").returncode == 0
    alice.from_now().send(b"q")
    assert alice.finish() == 0
    again = club.ssh("alice", "alice")  # Mallory's ban is not Alice's
    again.expect(r"alice · Classic 1500 ± \d+")
    again.expect("Open tables")


def test_a_key_joins_a_handle_by_a_login_made_with_it_and_a_one_time_word(club: Club) -> None:
    alice = club.ssh("alice", "alice")
    alice.expect("Open tables")
    bob = club.ssh("bob", "bob")
    bob.expect("Open tables")
    alice.from_now().send(b"k")
    word = alice.expect(r"ssh -p \d+ (alice\+[a-z0-9]{8})@HOST")[1]
    alice.send(b"\x1b")

    bobs = club.ssh(word, "bob")  # a key of another handle stays that handle's
    bobs.expect("This key already signs in as bob: a key belongs to one handle.")
    assert bobs.finish() == 1
    wrong = club.ssh("alice+abcdefgh", "phone")
    wrong.expect("That one-time word does not add a key to alice")
    assert wrong.finish() == 1

    phone = club.ssh(word, "phone")  # the word, with the key to add: in as alice
    phone.expect(r"alice · Classic 1500 ± \d+")
    phone.expect(r"The key ▌? ?SHA256:.* now signs in as alice")
    phone.from_now().send(b"q")
    assert phone.finish() == 0
    used = club.ssh(word, "tablet")  # the word worked once
    used.expect("That one-time word does not add a key to alice")
    assert used.finish() == 1

    later = club.ssh("alice", "phone")  # from now on, the phone's key is alice's
    later.expect(r"alice · Classic 1500 ± \d+")
    later.from_now().send(b"q")
    assert later.finish() == 0
    assert len(fingerprints(club, "alice")) == 2

    phone_key = fingerprints(club, "alice")[1]
    done = owner(club, "unkey", "alice", phone_key)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"The key {phone_key} no longer signs in as alice."
    gone = club.ssh("alice", "phone")
    gone.expect(r"The handle alice belongs to another key[^.]*\.")
    assert gone.finish() == 1
    again = owner(club, "unkey", "alice", phone_key)
    assert again.returncode == 2
    assert "alice holds no key" in again.stderr


def test_a_guests_k_offers_no_word(club: Club) -> None:
    guest = club.ssh("zed", None)
    guest.expect("Open tables")
    guest.from_now().send(b"k")
    guest.expect("A guest has no handle to add a key to")
