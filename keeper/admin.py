"""The game's rows in the operator console: characters (including the pregen cast, and
what each carries), stories with their NPCs, quests and keeper notes, each room's campaign memory (chronicle,
summary, lore; searchable), and the model configuration (keys masked)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from base.names import shown_name
from keeper import (
    character_names,
    model_admin,  # noqa: F401 (registers the model page)
    sheet_fields,
)
from keeper.llm.config import mask
from keeper.models import (
    CampaignSummary,
    Character,
    ChronicleEntry,
    InitiativeEntry,
    KeeperNote,
    LoreEntry,
    Npc,
    ProviderCredential,
    Quest,
    Story,
    TableSettings,
)
from rooms.signals import room_edited


class SeenAtTheTable(admin.ModelAdmin):
    """Rows the members of a room see: an edit here reaches them at once, as the same
    change made by a command would (a fresh `state`)."""

    def save_model(self, request: HttpRequest, obj: models.Model, form: forms.Form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        room_edited.send(sender=type(obj), room_id=obj.room_id)

    def delete_model(self, request: HttpRequest, obj: models.Model) -> None:
        room_id = obj.room_id
        super().delete_model(request, obj)
        room_edited.send(sender=type(obj), room_id=room_id)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        room_ids = set(queryset.values_list("room_id", flat=True))
        super().delete_queryset(request, queryset)
        for room_id in room_ids:
            room_edited.send(sender=self.model, room_id=room_id)


class CharacterForm(forms.ModelForm):
    """A character as the table shows it: its values, items and status effects as rows
    (`keeper.sheet_fields`), its owner by the member's name; empty lists save as they are."""

    owner = forms.ChoiceField(label=_("Owner"), required=False)
    attributes = sheet_fields.ValueRowsField(label=_("Attributes"))
    skills = sheet_fields.ValueRowsField(label=_("Skills"))
    resources = sheet_fields.ValueRowsField(label=_("Vitals"), help_text=_("current values (HP, SAN …)"))
    status_effects = sheet_fields.LinesField(label=_("Status effects"), help_text=_("one a line"))
    items = sheet_fields.ItemRowsField(label=_("Items"), help_text=_("clear a name to drop its item"))

    class Meta:
        model = Character
        exclude = ["avatar"]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        room_id = self.instance.room_id if self.instance.pk else None
        self.fields["owner"].choices = sheet_fields.owner_choices(room_id, self.instance.owner)

    def clean(self) -> dict:
        data = super().clean()
        # Two of one name never stand in one party, here as at the table (docs/rules.md,
        # "Characters and their names").
        room, wanted = data.get("room"), data.get("name")
        owner = data.get("owner") or ""
        if room and owner and owner != self.instance.owner and not sheet_fields.holds_a_key(room.pk, owner):
            self.add_error("owner", _("That member holds no key to this room."))
        twins = character_names.holders(room.pk, wanted, besides=self.instance.pk) if room and wanted else []
        if twins:
            taken = _("Another character of this room is already called %(name)s.")
            self.add_error("name", taken % {"name": twins[0].name})
        return data

    def clean_name(self) -> str:
        """The name as the table shows it (invisible characters and extra spaces gone)."""
        name = shown_name(self.cleaned_data.get("name") or "")
        if not name:
            raise forms.ValidationError(_("A character needs a name."))
        return name


@admin.register(Character)
class CharacterAdmin(SeenAtTheTable):
    form = CharacterForm
    list_display = ["name", "room", "system", "owned_by", "active", "pregen"]
    list_filter = ["system", "pregen", "active", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]
    readonly_fields = ["portrait"]
    fieldsets = [
        (None, {"fields": ["room", "name", "owner", "system", "active", "pregen", "portrait"]}),
        (_("Sheet"), {"fields": ["attributes", "skills", "resources", "status_effects"]}),
        (_("What they carry"), {"fields": ["items", "money"]}),
        (None, {"fields": ["background"]}),
    ]

    @admin.display(description=_("owner"))
    def owned_by(self, character: Character) -> str:
        return sheet_fields.owner_name(character.room_id, character.owner)

    @admin.display(description=_("portrait"))
    def portrait(self, character: Character) -> str:
        # Set at the table (`avatar_set`, `.avatar gen`): one of the room's pictures.
        avatar = character.avatar or {}
        return avatar.get("name") or avatar.get("hash", "")[:12] or _("none (set one at the table)")


@admin.register(Quest)
class QuestAdmin(SeenAtTheTable):
    list_display = ["name", "room", "status", "secret"]
    list_filter = ["status", "secret", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "description", "room__name"]


@admin.register(TableSettings)
class TableSettingsAdmin(SeenAtTheTable):
    list_display = ["room", "system", "house_rule"]
    list_select_related = ["room"]


@admin.register(InitiativeEntry)
class InitiativeEntryAdmin(SeenAtTheTable):
    list_display = ["room", "name", "value", "current"]
    list_select_related = ["room"]


@admin.register(Story)
class StoryAdmin(SeenAtTheTable):
    list_display = ["room", "module_title", "scene_name", "ai_turns", "input_tokens", "output_tokens"]
    list_select_related = ["room"]
    readonly_fields = list(Story.USAGE_FIELDS)


@admin.register(Npc)
class NpcAdmin(SeenAtTheTable):
    list_display = ["name", "room"]
    list_filter = ["room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]


@admin.register(KeeperNote)
class KeeperNoteAdmin(admin.ModelAdmin):
    list_display = ["room", "__str__", "created_at"]
    list_select_related = ["room"]


@admin.register(ChronicleEntry)
class ChronicleEntryAdmin(admin.ModelAdmin):
    list_display = ["room", "id", "actor", "__str__", "scene", "clock", "created_at"]
    list_filter = ["room"]
    list_select_related = ["room"]
    search_fields = ["actor", "line", "outcome", "keeper_facts", "room__name"]


@admin.register(CampaignSummary)
class CampaignSummaryAdmin(admin.ModelAdmin):
    list_display = ["room", "folds", "through_line_id", "updated_at"]
    list_select_related = ["room"]
    search_fields = ["text", "keeper_digest", "room__name"]


@admin.register(LoreEntry)
class LoreEntryAdmin(admin.ModelAdmin):
    list_display = ["title", "room", "visibility", "constant", "order", "source"]
    list_filter = ["visibility", "constant", "room"]
    list_select_related = ["room"]
    search_fields = ["title", "content", "source", "room__name"]


class CredentialForm(forms.ModelForm):
    """A key is typed in, never shown back: the field is always empty on the form."""

    api_key = forms.CharField(widget=forms.PasswordInput(render_value=False), max_length=500)

    class Meta:
        model = ProviderCredential
        fields = ["provider", "base_url", "api_key"]


@admin.register(ProviderCredential)
class ProviderCredentialAdmin(admin.ModelAdmin):
    form = CredentialForm
    # A key with no room is the operator's (every room); one with a room is that room's only.
    list_display = ["provider", "base_url", "room", "key_masked", "updated_at"]

    @admin.display(description="key")
    def key_masked(self, credential: ProviderCredential) -> str:
        # A subscription's sign-in is sealed and never shown, not even masked.
        return "(a subscription sign-in, sealed)" if credential.grant else mask(credential.api_key)
