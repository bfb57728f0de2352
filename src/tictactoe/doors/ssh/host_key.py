"""The SSH door's host key: made once (ed25519), kept with mode 0600 in the user data folder.

Its fingerprint is shown in the invitation, so the friend can check what `ssh` asks.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":
    raise ImportError("the SSH door runs games in pseudo-terminals: it needs Linux or macOS")

import contextlib
import logging
import os
import stat
import tempfile
from pathlib import Path

import asyncssh
import platformdirs

__all__ = ["HostKeyError", "fingerprint", "host_key_path", "load_host_key"]

log = logging.getLogger("tictactoe.online")


class HostKeyError(Exception):
    """The SSH host key cannot be used; the message says why, in a sentence for the host."""


def host_key_path() -> Path:
    """Where the door's SSH host key is kept: the user data folder."""
    return platformdirs.user_data_path("tictactoe") / "ssh_host_key"


def load_host_key(path: Path | None = None) -> asyncssh.SSHKey:
    """The door's host key: made once (ed25519), with mode 0600 from the start, reused after.

    A key file others may read is tightened to 0600; one of another user, or that is not
    a key, is refused with `HostKeyError` (and left as it is).
    """
    path = host_key_path() if path is None else path
    try:
        return _read_host_key(path)
    except FileNotFoundError:
        pass
    key = asyncssh.generate_private_key("ssh-ed25519", comment="tictactoe host key")
    try:
        _write_new_host_key(path, key.export_private_key())
    except FileExistsError:  # another host made it meanwhile: theirs is the one
        return _read_host_key(path)
    except OSError as error:
        raise HostKeyError(f"Cannot write the SSH host key {path}: {_reason(error)}.") from None
    return key


def _read_host_key(path: Path) -> asyncssh.SSHKey:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise HostKeyError(f"Cannot read the SSH host key {path}: {_reason(error)}.") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise HostKeyError(f"The SSH host key {path} is not a file.")
        if status.st_uid != os.getuid():
            raise HostKeyError(
                f"The SSH host key {path} belongs to another user: move it away,"
                " and a new key is made."
            )
        if status.st_mode & 0o077:
            os.fchmod(fd, 0o600)
            log.warning("the SSH host key %s was readable by others: now only by you", path)
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read()
    except OSError as error:
        raise HostKeyError(f"Cannot read the SSH host key {path}: {_reason(error)}.") from None
    finally:
        os.close(fd)
    try:
        return asyncssh.import_private_key(data)
    except (asyncssh.KeyImportError, ValueError) as error:
        raise HostKeyError(
            f"The SSH host key {path} is not a key this door can use ({error}):"
            " move it away, and a new key is made."
        ) from None


def _write_new_host_key(path: Path, data: bytes) -> None:
    """Write the key beside its place (mkstemp makes it 0600), then link it into place: no
    moment when the key is readable by others or only half written; FileExistsError if a
    key is there already."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.link(name, path)
    finally:
        with contextlib.suppress(OSError):
            Path(name).unlink()


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The key's fingerprint as OpenSSH shows it on first contact: "SHA256:" and base64."""
    return key.get_fingerprint("sha256")


def _reason(error: OSError) -> str:
    return os.strerror(error.errno) if error.errno else str(error)
