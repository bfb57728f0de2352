"""The authority: seats, watchers, seat-checked intents, drops and returns, with a fake clock."""

from __future__ import annotations

import random

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
)

from tictactoe.core.engine import Mark
from tictactoe.core.notices import Notice
from tictactoe.core.series import (
    ChooseMark,
    Confirm,
    Intent,
    NextMatch,
    Play,
    Series,
    SeriesError,
    Undo,
)
from tictactoe.online.authority import MAX_WATCHERS, Authority, JoinDenied, Stale, WrongCode
from tictactoe.online.protocol import Away, Ended, Hello, Refused, Welcome

CODE = "K7M4QX"
TOKEN = "the-host-token"
HOST, GUEST, WATCHER = 1, 2, 3
"""Link ids."""


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hello(name: str = "Bob", code: str = CODE, token: str | None = None) -> Hello:
    return Hello(code, name, "10.0.0.2", token)


def authority(clock: Clock | None = None, grace: float = 120.0) -> Authority:
    return Authority(
        CODE, "Alice", host_token=TOKEN, grace=grace, clock=clock or Clock(), rng=random.Random(1)
    )


def said(result: object) -> str:
    """The sentence of a refusal, or of a notice."""
    if isinstance(result, Refused):
        return str(result.notice)
    assert isinstance(result, Notice), result
    return str(result)


def seated(clock: Clock | None = None) -> Authority:
    """The host and Bob seated, Carol watching."""
    auth = authority(clock)
    assert auth.join(hello("whoever", token=TOKEN), HOST) == Welcome("seat", 0)
    assert auth.join(hello("Bob"), GUEST) == Welcome("seat", 1)
    assert auth.join(hello("Carol"), WATCHER) == Welcome("watcher", None)
    return auth


def test_before_the_guest_joins_there_is_no_series() -> None:
    auth = authority()
    auth.join(hello(token=TOKEN), HOST)
    state = auth.state_for(HOST)
    assert state.series is None
    assert state.names == ("Alice", None)
    assert said(auth.act(HOST, auth.version, ChooseMark(Mark.X))) == (
        "Wait for your friend to join."
    )


def test_the_guest_takes_seat_1_and_the_series_begins() -> None:
    auth = seated()
    state = auth.state_for(WATCHER)
    assert state.series == Series.new("Alice", "Bob")
    assert state.names == ("Alice", "Bob")
    assert state.watchers == 1
    assert state.away is None


def test_a_code_may_be_typed_loosely_and_a_wrong_one_is_refused() -> None:
    auth = authority()
    with pytest.raises(WrongCode, match=r"^That is not the code of this series\.$"):
        auth.join(hello(code="K7M4QY"), GUEST)
    with pytest.raises(WrongCode, match="host's token"):
        auth.join(hello(token="guess"), HOST)
    assert auth.join(hello(code="k7m-4qx"), GUEST) == Welcome("seat", 1)


def test_a_guest_may_not_take_the_hosts_name() -> None:
    auth = authority()
    with pytest.raises(JoinDenied, match=r"^Alice is playing already: choose another name\.$"):
        auth.join(hello(" ALICE "), GUEST)
    assert auth.series is None


def test_a_guests_name_is_cleaned() -> None:
    auth = authority()
    auth.join(hello("  Bob\x1b[31m  "), GUEST)
    assert auth.names == ("Alice", "Bob[31m")


def test_watchers_are_bounded() -> None:
    auth = seated()
    for link in range(10, 10 + MAX_WATCHERS - 1):
        auth.join(hello(f"w{link}"), link)
    assert auth.watchers == MAX_WATCHERS
    with pytest.raises(JoinDenied, match="watchers"):
        auth.join(hello("one more"), 999)


def test_each_seat_plays_only_its_own_moves() -> None:
    auth = seated()
    assert said(auth.act(GUEST, auth.version, ChooseMark(Mark.O))) == (
        "Alice chooses the mark this match."
    )
    assert isinstance(auth.act(HOST, auth.version, ChooseMark(Mark.X)), Series)
    assert said(auth.act(GUEST, auth.version, Play(4))) == "It is Alice's turn."
    assert isinstance(auth.act(HOST, auth.version, Play(4)), Series)
    assert said(auth.act(HOST, auth.version, Play(0))) == "It is Bob's turn."
    assert said(auth.act(GUEST, auth.version, Play(4))) == "The centre cell is taken by X."
    assert said(auth.act(WATCHER, auth.version, Play(0))) == (
        "You are watching: only the players move."
    )
    assert said(auth.act(GUEST, auth.version, Undo())) == "Moves are final online."
    assert auth.series is not None
    assert auth.series.match is not None
    assert auth.series.match.moves == (4,)


def test_a_stale_or_repeated_intent_changes_nothing() -> None:
    auth = seated()
    version = auth.version
    assert isinstance(auth.act(HOST, version, ChooseMark(Mark.X)), Series)
    assert isinstance(auth.act(HOST, version + 1, Play(0)), Series)
    series = auth.series
    assert auth.act(HOST, version + 1, Play(0)) == Stale(version + 2)
    assert auth.act(GUEST, version, Play(1)) == Stale(version + 2)
    assert auth.act(GUEST, version + 99, Play(1)) == Stale(version + 2)
    assert auth.series is series
    assert auth.version == version + 2


def test_a_whole_match_and_the_next_by_either_seat() -> None:
    auth = seated()
    auth.act(HOST, auth.version, ChooseMark(Mark.X))
    for link, cell in [(HOST, 0), (GUEST, 3), (HOST, 1), (GUEST, 4), (HOST, 2)]:
        assert isinstance(auth.act(link, auth.version, Play(cell)), Series)
    assert auth.series is not None
    assert auth.series.wins == (1, 0)
    assert isinstance(auth.act(GUEST, auth.version, Confirm(0)), Series)
    assert said(auth.act(HOST, auth.version, ChooseMark(Mark.X))) == (
        "Bob chooses the mark this match."
    )


def test_a_hint_is_announced_to_the_others() -> None:
    auth = seated()
    auth.act(HOST, auth.version, ChooseMark(Mark.X))
    assert said(auth.hint(GUEST)) == "It is Alice's turn."
    assert said(auth.hint(WATCHER)) == "You are watching: only the players move."
    version = auth.version
    assert said(auth.hint(HOST)) == "Alice asked for a hint."
    assert auth.version == version + 1
    assert str(auth.state_for(GUEST).notice) == "Alice asked for a hint."
    assert str(auth.state_for(WATCHER).notice) == "Alice asked for a hint."
    assert str(auth.state_for(HOST).notice) == ""


def test_a_dropped_seat_pauses_the_series_and_the_same_name_takes_it_back() -> None:
    clock = Clock()
    auth = seated(clock)
    auth.act(HOST, auth.version, ChooseMark(Mark.X))
    auth.act(HOST, auth.version, Play(4))
    before = auth.series
    assert auth.drop(GUEST)
    clock.now += 2
    assert auth.state_for(HOST).away == Away(1, "Bob", 118.0)
    assert said(auth.act(HOST, auth.version, Play(0))) == ("The series is paused: waiting for Bob.")
    assert auth.join(hello("Mallory"), 7) == Welcome("watcher", None)
    assert auth.join(hello(" bob "), 8) == Welcome("seat", 1)
    assert auth.series is before
    state = auth.state_for(HOST)
    assert state.away is None
    assert str(state.notice) == "Bob is back."
    assert isinstance(auth.act(8, auth.version, Play(0)), Series)
    assert said(auth.act(GUEST, auth.version, Play(1))) == "Join the series first."


def test_after_the_grace_the_series_stays_paused_until_the_host_ends_it() -> None:
    clock = Clock()
    auth = seated(clock)
    auth.drop(GUEST)
    clock.now += 119
    assert not auth.tick()
    clock.now += 1
    version = auth.version
    assert auth.tick()
    assert auth.version == version + 1
    assert not auth.tick()
    assert auth.state_for(HOST).away == Away(1, "Bob", 0.0)
    assert said(auth.act(HOST, auth.version, ChooseMark(Mark.X))) == (
        "The series is paused: waiting for Bob."
    )
    clock.now += 500
    assert auth.join(hello("Bob"), 9) == Welcome("seat", 1)
    assert isinstance(auth.act(HOST, auth.version, ChooseMark(Mark.X)), Series)


def test_the_host_takes_its_seat_back_only_with_its_token() -> None:
    auth = seated()
    auth.drop(HOST)
    with pytest.raises(JoinDenied, match="Alice is hosting this series"):
        auth.join(hello("Alice"), 20)
    assert auth.join(hello(token=TOKEN), 22) == Welcome("seat", 0)
    with pytest.raises(JoinDenied, match="seat is taken"):
        auth.join(hello(token=TOKEN), 21)
    assert auth.state_for(GUEST).away is None


def test_a_seat_leaving_ends_the_series_for_everyone() -> None:
    auth = seated()
    assert auth.leave(WATCHER) is None
    assert auth.watchers == 0
    ended = auth.leave(GUEST)
    assert ended == Ended("Bob left the series.", auth.series)
    assert said(auth.act(HOST, auth.version, ChooseMark(Mark.X))) == (
        "This series has ended: Bob left the series."
    )
    with pytest.raises(JoinDenied, match="ended"):
        auth.join(hello("Dan"), 30)
    assert auth.end("The host quit.") is ended


def test_the_host_ends_the_series() -> None:
    auth = seated()
    assert auth.end("Alice ended the series.").text == "Alice ended the series."
    assert str(auth.state_for(WATCHER).notice) == "Alice ended the series."


def test_a_link_joins_once() -> None:
    auth = seated()
    with pytest.raises(JoinDenied, match="already"):
        auth.join(hello("Dan"), WATCHER)


def test_after_the_end_a_drop_changes_nothing() -> None:
    auth = seated()
    auth.end("The host quit.")
    version = auth.version
    assert not auth.drop(GUEST)
    assert not auth.drop(WATCHER)
    assert auth.version == version
    assert auth.away is None


# The stateful test: any sequence of joins, intents, drops, returns and ticks.

intents: st.SearchStrategy[Intent] = st.one_of(
    st.builds(Play, st.integers(0, 8)),
    st.builds(ChooseMark, st.sampled_from(Mark)),
    st.builds(Confirm, st.integers(0, 8)),
    st.just(Undo()),
    st.just(NextMatch()),
)


class OnlineSeries(RuleBasedStateMachine):
    """Two seats and watchers acting at random; the invariants are checked after each step."""

    links = Bundle("links")

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock()
        self.auth = authority(self.clock, grace=30)
        self.next_link = 100
        self.last_version = 0
        self.series_at: dict[int, Series | None] = {}
        """The series as it was at each version seen."""
        self.expected: Series | None = None
        """The series as the seat-checked core makes it, step by step."""

    def fresh(self) -> int:
        self.next_link += 1
        return self.next_link

    @initialize(target=links)
    def host_joins(self) -> int:
        link = self.fresh()
        assert self.auth.join(hello(token=TOKEN), link) == Welcome("seat", 0)
        return link

    @rule(target=links, name=st.sampled_from(["Bob", "bob", "Carol", "Alice", ""]))
    def someone_joins(self, name: str) -> int:
        link = self.fresh()
        had_series = self.auth.series is not None
        try:
            welcome = self.auth.join(hello(name), link)
        except JoinDenied:
            return link
        if not had_series and welcome.seat == 1:
            self.expected = Series.new("Alice", name or "Player 2")
        return link

    @rule(link=links, version_offset=st.sampled_from([0, 0, 0, -1, 1]), intent=intents)
    def acts(self, link: int, version_offset: int, intent: Intent) -> None:
        seat = self.auth.seat_of(link)
        before, version = self.auth.series, self.auth.version
        result = self.auth.act(link, version + version_offset, intent)
        if isinstance(result, Series):
            assert seat is not None and not self.auth.paused
            # Made on this version, or on one where the series was already as it is now.
            assert version_offset == 0 or (
                version_offset < 0 and self.series_at.get(version + version_offset) == before
            )
            assert self.expected is not None
            self.expected = self.expected.apply_as(seat, intent, random.Random(0))
            assert result == self.expected
            # Repeating it changes nothing.
            assert isinstance(self.auth.act(link, version + version_offset, intent), Stale)
        else:
            assert self.auth.series is before
            assert self.auth.version == version
        if seat is None:
            assert not isinstance(result, Series)
        core_refused = (
            isinstance(result, Refused)
            and seat is not None
            and self.expected is not None
            and version_offset == 0
            and not self.auth.paused
            and not isinstance(intent, Undo)
        )
        if core_refused:
            assert isinstance(result, Refused) and seat is not None and self.expected is not None
            with pytest.raises(SeriesError) as refusal:
                self.expected.apply_as(seat, intent)
            assert refusal.value.notice == result.notice

    @rule(picks=st.lists(st.integers(0, 8), min_size=1, max_size=6), mark=st.sampled_from(Mark))
    def the_seats_due_act(self, picks: list[int], mark: Mark) -> None:
        """The seats whose turn it is give intents the core accepts, on the current version."""
        for pick in picks:
            series = self.auth.series
            if series is None or self.auth.paused:
                return
            actor = series.actor
            seat = pick % 2 if actor is None else actor
            link = next(
                (link for link in range(self.next_link + 1) if self.auth.seat_of(link) == seat),
                None,
            )
            if link is None:
                return
            intent: Intent
            if series.match is None:
                intent = ChooseMark(mark)
            elif series.match.is_over:
                intent = NextMatch()
            else:
                moves = series.match.legal_moves()
                intent = Play(moves[pick % len(moves)])
            self.acts(link, 0, intent)

    @rule(link=links)
    def asks_for_a_hint(self, link: int) -> None:
        before = self.auth.series
        self.auth.hint(link)
        assert self.auth.series is before

    @rule(link=consumes(links))
    def link_drops(self, link: int) -> None:
        self.auth.drop(link)
        assert self.auth.seat_of(link) is None

    @rule(seconds=st.sampled_from([1.0, 10.0, 29.0, 31.0]))
    def time_passes(self, seconds: float) -> None:
        self.clock.now += seconds
        self.auth.tick()

    @invariant()
    def the_series_changes_only_through_the_core(self) -> None:
        assert self.auth.series == self.expected

    @invariant()
    def the_version_never_goes_down(self) -> None:
        assert self.auth.version >= self.last_version
        self.last_version = self.auth.version
        self.series_at.setdefault(self.auth.version, self.auth.series)

    @invariant()
    def away_is_paused(self) -> None:
        away = self.auth.away
        assert (away is not None) == self.auth.paused
        if away is not None:
            assert 0 <= away.seconds_left <= 30


OnlineSeries.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestOnlineSeries = OnlineSeries.TestCase


def test_a_move_made_while_a_watcher_came_in_still_counts() -> None:
    """The version grows when a watcher joins or a hint is asked for; a move made on the
    version just before is made on the same series, and is applied, not dropped as stale."""
    authority = Authority("K7M4QX", "Alice", host_token="token")
    authority.join(Hello(code="K7M4QX", name="Alice", peer="127.0.0.1", host_token="token"), 1)
    authority.join(Hello(code="K7M4QX", name="Bob", peer="127.0.0.1"), 2)
    authority.act(1, authority.version, ChooseMark(Mark.X))
    seen = authority.version
    authority.join(Hello(code="K7M4QX", name="Carol", peer="127.0.0.1"), 3)
    assert authority.version > seen
    series = authority.act(1, seen, Play(4))
    assert isinstance(series, Series) and series.match is not None
    assert series.match.moves == (4,)
    assert isinstance(authority.act(2, seen, Play(0)), Stale)  # made before Alice's move


def test_a_player_whose_old_link_is_not_noticed_gone_yet_is_told_so() -> None:
    """Bob's laptop closed: his link still looks alive until the keepalives give up. Bob
    joining again meanwhile is told to try again, not seated as a watcher under his name."""
    authority = Authority("K7M4QX", "Alice", host_token="token")
    authority.join(Hello(code="K7M4QX", name="Alice", peer="127.0.0.1", host_token="token"), 1)
    authority.join(Hello(code="K7M4QX", name="Bob", peer="127.0.0.1"), 2)
    with pytest.raises(JoinDenied, match="Bob is still connected"):
        authority.join(Hello(code="K7M4QX", name="bob", peer="127.0.0.1"), 3)
    with pytest.raises(JoinDenied, match="Alice is hosting this series"):
        authority.join(Hello(code="K7M4QX", name="Alice", peer="127.0.0.1"), 4)
    assert authority.watchers == 0
    authority.drop(2)
    assert authority.join(Hello(code="K7M4QX", name="Bob", peer="127.0.0.1"), 5) == Welcome(
        "seat", 1
    )
