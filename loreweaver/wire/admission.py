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
"""

from __future__ import annotations

from collections import Counter

from django.conf import settings

# Sockets of one address that may wait out a wrong-key backoff at the same time.
REFUSED_WAITING_PER_ADDRESS = 16


class Gate:
    """This process's connection counts, by budget and by address."""

    def __init__(self) -> None:
        self.members = 0
        self.handshakes = 0
        self.refused = 0
        self._handshakes_of: Counter[str] = Counter()
        self._refused_of: Counter[str] = Counter()

    @property
    def live(self) -> int:
        """Every connection this process holds a place for."""
        return self.members + self.handshakes + self.refused

    def enter(self, address: str) -> Ticket:
        """A place for a new connection from `address` to shake hands in; a ticket that
        holds none (`held` false) when the process, the handshake budget or that
        address is full."""
        if (
            self.live >= settings.TRPG_MAX_CONNECTIONS
            or self.handshakes >= settings.TRPG_HANDSHAKE_CONNECTIONS
            or self._handshakes_of[address] >= settings.TRPG_HANDSHAKES_PER_ADDRESS
        ):
            return Ticket(self, address, None)
        self.handshakes += 1
        self._handshakes_of[address] += 1
        return Ticket(self, address, "handshakes")

    def _move(self, address: str, source: str, target: str | None) -> None:
        setattr(self, source, getattr(self, source) - 1)
        if source != "members":
            _decrement(getattr(self, f"_{source}_of"), address)
        if target is not None:
            setattr(self, target, getattr(self, target) + 1)
            if target != "members":
                getattr(self, f"_{target}_of")[address] += 1


def _decrement(counts: Counter[str], address: str) -> None:
    counts[address] -= 1
    if counts[address] <= 0:
        del counts[address]


class Ticket:
    """One connection's place: in the handshake budget, then a member's or a refused
    key's, until it is given back (exactly once; every call after that does nothing)."""

    def __init__(self, gate: Gate, address: str, budget: str | None) -> None:
        self._gate = gate
        self._address = address
        self._budget = budget

    @property
    def held(self) -> bool:
        """Whether the ticket holds a place (it does until it is given back)."""
        return self._budget is not None

    def seat(self) -> None:
        """The connection joined: it holds a member's place now."""
        self._to("members")

    def refuse(self) -> bool:
        """The connection's key was wrong: it leaves the handshake budget. Whether it
        may wait out the backoff (a place among its address's refused sockets);
        otherwise its answer goes at once."""
        if self._budget != "handshakes":
            return False
        if self._gate._refused_of[self._address] >= REFUSED_WAITING_PER_ADDRESS:
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
        self._gate._move(self._address, self._budget, budget)
        self._budget = budget


gate = Gate()
# The place of a connection that has not asked for one yet.
NO_PLACE = Ticket(gate, "", None)
