"""Textual has no public "is the app idle" check; drop once it has one.

`Pilot.pause()` guesses from the process looking idle (`wait_for_idle`: a wait of its own each
call, and a guess), and `pilot.pause(0)` only waits for the messages already queued on the app and
the top screen, not for what their handlers queue next. `pending_work` says whether anything is
still queued anywhere in an app, so that a test driving thousands of inputs can wait exactly until
each burst is handled.

Private parts of Textual relied on (pinned by `tests/unit/test_adapters_contract.py`): each
message pump's `call_next` list `MessagePump._next_callbacks`, and `App._resize_event`, the resize
an app holds back for its debounce timer. The queues themselves are read through the public
`MessagePump.message_queue_size`.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.message_pump import MessagePump


def pending_work(app: App[Any]) -> str | None:
    """What `app` has yet to handle, in words, or None once everything queued is handled.

    Looks at the app, every screen in its stack and every widget on them: one message queue
    and one `call_next` list each, and the resize the app holds back for its debounce.
    """
    if app._resize_event is not None:
        return "a resize waits for the debounce timer"
    pumps: list[MessagePump] = [app]
    for screen in app.screen_stack:
        pumps.extend(screen.walk_children(with_self=True))
    for pump in pumps:
        if pump.message_queue_size or pump._next_callbacks:
            return f"{pump!r} has messages queued"
    return None
