"""What the host passes on to a friend: the lines that join a hosted series."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Invitation"]


@dataclass(frozen=True, slots=True)
class Invitation:
    """What the host passes on to a friend: the lines that join this series."""

    code: str
    ssh_lines: tuple[str, ...]
    """One `ssh -p PORT CODE@ADDRESS` line per address of this machine."""
    web_addresses: tuple[str, ...]
    """The browser door's addresses (the page asks for the code)."""
    fingerprint: str
    """The SSH host key's fingerprint, as `ssh` shows it on first contact."""

    def text(self) -> str:
        """The invitation as plain lines."""
        lines = ["To join from any terminal, paste one of these lines:", ""]
        lines += [f"  {line}" for line in self.ssh_lines]
        if self.web_addresses:
            lines += ["", f"Or open in a web browser, then give the code {self.code}:", ""]
            lines += [f"  {address}" for address in self.web_addresses]
        lines += [
            "",
            "The first time, ssh asks whether to trust this host; its key's fingerprint is",
            f"  {self.fingerprint}",
        ]
        return "\n".join(lines)
