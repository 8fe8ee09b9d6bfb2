"""The game's rows in the operator console: characters (including the pregen cast)."""

from __future__ import annotations

from django.contrib import admin

from keeper.models import Character, InitiativeEntry, TableSettings


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
