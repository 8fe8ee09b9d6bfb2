"""`.model login chatgpt|supergrok` and `.model logout`: a keeper signs the room in to
their own subscription (docs/operations.md, "Signing in with a subscription").

Every answer is private to the keeper who asked. The sign-in goes on in the
background (`keeper.llm.device_login`); how it ended reaches that keeper as one more
private line. The grant is the room's: another room never uses it.
"""

from __future__ import annotations

import functools

from base.i18n import _
from keeper.commands import Caller, CommandReply, FollowUp
from keeper.llm import config as llm_config
from keeper.llm import device_login, grants
from keeper.llm.providers import SUBSCRIPTIONS

ENDED = {
    "denied": _("The {p} sign-in was refused; nothing was saved. Try .model login {p} again."),
    "expired": _("The {p} sign-in code expired before it was approved. Try .model login {p} again."),
    "timeout": _("The {p} sign-in was not approved in time. Try .model login {p} again."),
    "failed": _("The {p} sign-in could not be completed (the provider could not be reached)."),
}


def login(rest: str, caller: Caller) -> CommandReply:
    """Start (or show again) the room's sign-in to a subscription provider."""
    provider = rest.strip().lower()
    if provider not in SUBSCRIPTIONS:
        return CommandReply(caller.say(_("Use .model login chatgpt or .model login supergrok.")))
    if not grants.allowed():
        return CommandReply(caller.say(_("This server does not let rooms use their own subscriptions.")))
    name = grants.canonical(provider)
    code = device_login.under_way(caller.room_id, name)
    if code is not None:  # asked again while one is under way: the same code
        return CommandReply(_shown(caller, code))

    def started(outcome: object) -> CommandReply:
        if not isinstance(outcome, tuple):
            return CommandReply(caller.say(ENDED["failed"], p=name))
        code, new = outcome
        if not new:
            return CommandReply(_shown(caller, code))
        polling = functools.partial(device_login.wait, caller.room_id, code)
        return CommandReply(
            _shown(caller, code),
            follow_up=FollowUp(polling, functools.partial(_ended, caller, name), background=True),
        )

    # The provider is asked for a code, and then polled, beside the keeper's next inputs.
    asking = functools.partial(device_login.begin, caller.room_id, name)
    return CommandReply(
        caller.say(_("Asking {p} for a sign-in code…"), p=name),
        follow_up=FollowUp(asking, started, background=True),
    )


def _shown(caller: Caller, code: device_login.DeviceCode) -> str:
    return caller.say(
        _(
            "To sign this room in to {p}, open {url} and enter the code {code}. "
            "I will tell you here when it is done."
        ),
        p=code.provider,
        url=code.verification_url,
        code=code.user_code,
    )


def _ended(caller: Caller, name: str, outcome: object) -> CommandReply:
    """How the sign-in ended, told to the keeper who asked (the grant kept on success)."""
    if isinstance(outcome, grants.Grant):
        grants.store(caller.room_id, name, outcome)
        if llm_config.resolve(caller.room_id).subscription == name:  # chosen before: in play now
            return CommandReply(
                caller.say(_("Signed in to {p} for this room; its Keeper plays on it now."), p=name),
                model_changed=True,
            )
        return CommandReply(
            caller.say(
                _("Signed in to {p} for this room. Choose it with .model set {p}."),
                p=name,
            ),
            model_changed=True,
        )
    reason = outcome.reason if isinstance(outcome, device_login.LoginEnded) else "failed"
    if reason == "cancelled":
        return CommandReply(caller.say(_("The {p} sign-in was cancelled."), p=name))
    return CommandReply(caller.say(ENDED.get(reason, ENDED["failed"]), p=name))


def logout(rest: str, caller: Caller) -> CommandReply:
    """Forget the room's grant (one provider's, or both)."""
    provider = rest.strip().lower()
    if provider and provider not in SUBSCRIPTIONS:
        return CommandReply(caller.say(_("Use .model logout [chatgpt|supergrok].")))
    names = [grants.canonical(provider)] if provider else sorted(set(SUBSCRIPTIONS.values()))
    forgot = []
    for name in names:
        device_login.cancel(caller.room_id, name)
        if grants.forget(caller.room_id, name):
            forgot.append(name)
    if not forgot:
        return CommandReply(caller.say(_("This room was not signed in to a subscription.")))
    return CommandReply(
        caller.say(_("Signed out of {p} for this room."), p=", ".join(forgot)), model_changed=True
    )
