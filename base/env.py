"""Typed readers for environment variables.

Every setting of this project comes from the environment. A bad value stops the
process at start with a message that names the variable, so an operator never has
to guess which of twenty settings was wrong.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str = "") -> str:
    """Return the variable as text, or `default` when it is unset."""
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool = False) -> bool:
    """Return the variable as a boolean (1/0, true/false, yes/no, on/off)."""
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean; use 1/0, true/false, on/off.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """Return the variable as an integer, refusing values below `minimum`."""
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum of {minimum}.")
    return number


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    """Return the variable as a number of seconds (or any float), refusing values below `minimum`."""
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number.") from None
    if number != number or (minimum is not None and number < minimum):  # NaN or too small
        raise ImproperlyConfigured(f"{name}={value!r} must be a number of at least {minimum}.")
    return number


def env_choice(name: str, default: str, choices: Iterable[str]) -> str:
    """Return the variable, which must be one of `choices` (compared lower-case)."""
    allowed = tuple(choices)
    value = _raw(name)
    if value is None or value == "":
        return default
    lowered = value.lower()
    if lowered not in allowed:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(allowed)}.")
    return lowered


def env_list(name: str, default: Iterable[str] = ()) -> list[str]:
    """Return a comma-separated variable as a list of non-empty items."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, schemes: Iterable[str]) -> str:
    """Return a URL variable (empty when unset) whose scheme must be one of `schemes`."""
    value = env_str(name)
    if not value:
        return ""
    allowed = tuple(schemes)
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if scheme not in allowed:
        raise ImproperlyConfigured(
            f"{name} must be a URL starting with {' or '.join(s + '://' for s in allowed)}; "
            f"got {value.split('://', 1)[0]!r}."
        )
    return value


def env_dir(name: str, default: Path) -> Path:
    """Return a directory path (created if missing), refusing one that cannot be made."""
    value = _raw(name)
    path = Path(value).expanduser() if value else default
    path = path.resolve()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ImproperlyConfigured(f"{name}={str(path)!r} cannot be created: {exc.strerror}.") from None
    if not os.access(path, os.W_OK):
        raise ImproperlyConfigured(f"{name}={str(path)!r} is not writable.")
    return path
