"""Operator console forms: keys are minted and changed through the services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_lazy

from base.i18n import active_locale
from rooms.models import AccessKey, Role
from rooms.services import KeyAdminError, room_name_to_use


class KeyMintForm(forms.ModelForm):
    """Mint a key: pick a room or name a new one."""

    new_room = forms.CharField(
        required=False,
        max_length=64,
        label=gettext_lazy("New room"),
        help_text=gettext_lazy("Or type a new room name (created on save)."),
    )

    class Meta:
        model = AccessKey
        fields = ["room", "new_room", "name", "role"]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["room"].required = False

    def clean_new_room(self) -> str:
        typed = (self.cleaned_data.get("new_room") or "").strip()
        if not typed:
            return typed
        try:
            return room_name_to_use(typed)
        except KeyAdminError as refused:
            raise forms.ValidationError(refused.message(active_locale())) from None

    def clean(self) -> dict:
        data = super().clean()
        if not data.get("room") and not (data.get("new_room") or "").strip():
            raise forms.ValidationError(gettext("Choose a room or type the name of a new one."))
        return data

    def room_name(self) -> str:
        new_room = (self.cleaned_data.get("new_room") or "").strip()
        return new_room or self.cleaned_data["room"].name


class KeyChangeForm(forms.ModelForm):
    """Rename a key or change its role; the room's last keeper key stays a keeper."""

    class Meta:
        model = AccessKey
        fields = ["name", "role"]

    def clean_role(self) -> str:
        role = self.cleaned_data["role"]
        key = self.instance
        if role != Role.KEEPER and key.pk and key.is_last_keeper():
            raise forms.ValidationError(
                gettext(
                    "This is the last keeper key of the room; mint another keeper key before demoting it."
                )
            )
        return role
