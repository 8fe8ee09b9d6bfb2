"""Who may hold a connection of this process, under TRPG_TUI__MAX_CONNECTIONS.

The cap is per server process by design (docs/decisions.md), so the counts live in
the process. Connections draw from two budgets, so that strangers cannot crowd out
the table:

- **handshakes** (a socket that has not joined yet) take at most
  `TRPG_TUI__HANDSHAKE_CONNECTIONS` of the cap (default: three quarters of it), and at
  most `TRPG_TUI__HANDSHAKES_PER_ADDRESS` from one address: the rest of the cap is for
  members;
- **members** (joined) are counted against the whole cap.

A socket whose key was wrong leaves the handshake budget at once: while it waits out
the wrong-key backoff it holds a place of its own, a few per address
(`REFUSED_WAITING_PER_ADDRESS`); beyond those, its answer is not held back. So a burst
of wrong keys from one address holds at most its handshake share, briefly, and a right
key from any address still gets in.

A socket that has sent nothing yet (*silent*) holds its handshake place only while
nobody needs it more: a newcomer that finds a budget or its address's share full takes
the place of a silent socket, which is closed with `join_timeout` (docs/decisions.md,
"The handshake"). It may take one silent for longer than
`TRPG_TUI__CROWDED_JOIN_TIMEOUT`, or any of an address that holds at least two more
handshake places than the newcomer's (for a full share: only one of its own address);
of those, the oldest of the address holding the most. A socket that has sent its join
(being checked, or waiting out a wrong-key backoff) never gives way.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from django.conf import settings

# Sockets of one address that may wait out a wrong-key backoff at the same time.
REFUSED_WAITING_PER_ADDRESS = 16
# How many more handshake places an address must hold than a newcomer's before its
# silent sockets give way however young they are: with one, two addresses of equal
# shares would take each other's places in turn.
RICHER_BY = 2


class Gate:
    """This process's connection counts, by budget and by address."""

    def __init__(self) -> None:
        self.members = 0
        self.handshakes = 0
        self.refused = 0
        self._handshakes_of: Counter[str] = Counter()
        self._refused_of: Counter[str] = Counter()
        # The silent handshake tickets of each address, oldest first.
        self._silent_of: dict[str, dict[Ticket, None]] = {}

    @property
    def live(self) -> int:
        """Every connection this process holds a place for."""
        return self.members + self.handshakes + self.refused

    def enter(self, address: str, give_way: Callable[[], None]) -> Ticket:
        """A place for a new connection from `address` to shake hands in, taken from a
        silent socket when a budget is full (see the module); a ticket that holds none
        (`held` false) when no silent socket may give way. `give_way` closes this
        connection, should it be the silent socket that gives way to a later one."""
        if self._handshakes_of[address] >= settings.TRPG_HANDSHAKES_PER_ADDRESS:
            room = self._make_room(address, only_its_own=True)
        elif (
            self.live >= settings.TRPG_MAX_CONNECTIONS
            or self.handshakes >= settings.TRPG_HANDSHAKE_CONNECTIONS
        ):
            room = self._make_room(address, only_its_own=False)
        else:
            room = True
        if not room:
            return Ticket(self, address, None, give_way)
        self.handshakes += 1
        self._handshakes_of[address] += 1
        ticket = Ticket(self, address, "handshakes", give_way)
        self._silent_of.setdefault(address, {})[ticket] = None
        return ticket

    def _make_room(self, newcomer: str, *, only_its_own: bool) -> bool:
        """Close the silent socket that gives way to a newcomer from `newcomer`;
        whether there was one."""
        now = time.monotonic()
        grace = settings.TRPG_CROWDED_JOIN_TIMEOUT
        richer = self._handshakes_of[newcomer] + RICHER_BY
        candidates = []
        for address in [newcomer] if only_its_own else self._silent_of:
            oldest = next(iter(self._silent_of.get(address, ())), None)
            if oldest is None:
                continue
            places = self._handshakes_of[address]
            if now - oldest.since > grace or (address != newcomer and places >= richer):
                candidates.append((places, now - oldest.since, oldest))
        if not candidates:
            return False
        max(candidates, key=lambda candidate: candidate[:2])[2].give_way()
        return True

    def _move(self, ticket: Ticket, source: str, target: str | None) -> None:
        address = ticket.address
        setattr(self, source, getattr(self, source) - 1)
        if source == "handshakes":
            self._hear(ticket)
        if source != "members":
            _decrement(getattr(self, f"_{source}_of"), address)
        if target is not None:
            setattr(self, target, getattr(self, target) + 1)
            if target != "members":
                getattr(self, f"_{target}_of")[address] += 1

    def _hear(self, ticket: Ticket) -> None:
        silent = self._silent_of.get(ticket.address, {})
        silent.pop(ticket, None)
        if not silent:
            self._silent_of.pop(ticket.address, None)


def _decrement(counts: Counter[str], address: str) -> None:
    counts[address] -= 1
    if counts[address] <= 0:
        del counts[address]


class Ticket:
    """One connection's place: in the handshake budget, then a member's or a refused
    key's, until it is given back (exactly once; every call after that does nothing)."""

    def __init__(self, gate: Gate, address: str, budget: str | None, give_way: Callable[[], None]) -> None:
        self._gate = gate
        self.address = address
        self._budget = budget
        self._give_way = give_way
        self.since = time.monotonic()

    @property
    def held(self) -> bool:
        """Whether the ticket holds a place (it does until it is given back)."""
        return self._budget is not None

    def heard(self) -> None:
        """The connection sent something: it never gives way to a newcomer."""
        if self._budget == "handshakes":
            self._gate._hear(self)

    def give_way(self) -> None:
        """Give the place to a newcomer, and have the connection closed."""
        self._to(None)
        self._give_way()

    def seat(self) -> None:
        """The connection joined: it holds a member's place now."""
        self._to("members")

    def refuse(self) -> bool:
        """The connection's key was wrong: it leaves the handshake budget. Whether it
        may wait out the backoff (a place among its address's refused sockets);
        otherwise its answer goes at once."""
        if self._budget != "handshakes":
            return False
        if self._gate._refused_of[self.address] >= REFUSED_WAITING_PER_ADDRESS:
            self._to(None)
            return False
        self._to("refused")
        return True

    def leave(self) -> None:
        """Give the place back (the connection closed)."""
        self._to(None)

    def _to(self, budget: str | None) -> None:
        if self._budget is None:
            return
        self._gate._move(self, self._budget, budget)
        self._budget = budget


gate = Gate()
# The place of a connection that has not asked for one yet.
NO_PLACE = Ticket(gate, "", None, lambda: None)
