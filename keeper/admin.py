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
    inventory,
    model_admin,  # noqa: F401 (registers the model page)
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
    """A sheet whose lists or tables are empty saves as it is (`[]` is a value here)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        for name in ("attributes", "skills", "resources", "status_effects", "items"):
            self.fields[name].required = False

    def clean(self) -> dict:
        data = super().clean()
        for name, empty in (
            ("attributes", {}),
            ("skills", {}),
            ("resources", {}),
            ("status_effects", []),
            ("items", []),
        ):
            if data.get(name) is None:
                data[name] = empty
        # Two of one name never stand in one party, here as at the table (docs/rules.md,
        # "Characters and their names").
        room, wanted = data.get("room"), data.get("name")
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

    def clean_items(self) -> list:
        """Each item in the one shape the table reads (`keeper.inventory.clean_item`)."""
        items = self.cleaned_data.get("items")
        if items is None:
            return []
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise forms.ValidationError(
                _('A list of items, each like {"name": "Lantern", "kind": "tool", "quantity": 1}.')
            )
        cleaned = [inventory.clean_item(item) for item in items]
        if any(not item["name"] for item in cleaned):
            raise forms.ValidationError(_("Every item needs a name."))
        return cleaned


@admin.register(Character)
class CharacterAdmin(SeenAtTheTable):
    form = CharacterForm
    list_display = ["name", "room", "system", "owner", "active", "pregen"]
    list_filter = ["system", "pregen", "active", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]


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
        return mask(credential.api_key)
