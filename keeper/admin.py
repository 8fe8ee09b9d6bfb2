"""The game's rows in the operator console: characters (including the pregen cast),
stories with their NPCs and keeper notes, each room's campaign memory (chronicle,
summary, lore; searchable), and the model configuration (keys masked)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from keeper.llm.config import mask
from keeper.models import (
    CampaignSummary,
    Character,
    ChronicleEntry,
    InitiativeEntry,
    KeeperNote,
    LoreEntry,
    ModelSetting,
    Npc,
    ProviderCredential,
    Story,
    TableSettings,
)


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ["name", "room", "system", "owner", "active", "pregen"]
    list_filter = ["system", "pregen", "active", "room"]
    list_select_related = ["room"]
    search_fields = ["name", "room__name"]


@admin.register(TableSettings)
class TableSettingsAdmin(admin.ModelAdmin):
    list_display = ["room", "system", "house_rule"]
    list_select_related = ["room"]


@admin.register(InitiativeEntry)
class InitiativeEntryAdmin(admin.ModelAdmin):
    list_display = ["room", "name", "value", "current"]
    list_select_related = ["room"]


@admin.register(Story)
class StoryAdmin(admin.ModelAdmin):
    list_display = ["room", "module_title", "scene_name", "ai_turns", "input_tokens", "output_tokens"]
    list_select_related = ["room"]
    readonly_fields = list(Story.USAGE_FIELDS)


@admin.register(Npc)
class NpcAdmin(admin.ModelAdmin):
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


@admin.register(ModelSetting)
class ModelSettingAdmin(admin.ModelAdmin):
    list_display = ["provider", "chat_model", "base_url", "updated_at"]


class CredentialForm(forms.ModelForm):
    """A key is typed in, never shown back: the field is always empty on the form."""

    api_key = forms.CharField(widget=forms.PasswordInput(render_value=False), max_length=500)

    class Meta:
        model = ProviderCredential
        fields = ["provider", "base_url", "api_key"]


@admin.register(ProviderCredential)
class ProviderCredentialAdmin(admin.ModelAdmin):
    form = CredentialForm
    list_display = ["provider", "base_url", "key_masked", "updated_at"]

    @admin.display(description="key")
    def key_masked(self, credential: ProviderCredential) -> str:
        return mask(credential.api_key)
