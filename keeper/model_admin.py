"""The console's model page: the server-wide model, where it comes from, and which
rooms chose their own.

One page for the operator's server-wide row: every room's Keeper uses it unless its
keeper chose another model for that room (`.model`, the model screen), and those rooms
are listed with their choice. It shows what is in force, the environment's fallback
included; the provider is chosen from the catalog, endpoints are checked to be http(s)
URLs the server may reach (the operator's are not held to the rooms' endpoint policy,
but link-local addresses are never allowed), a key left blank keeps the one saved for
that provider and endpoint (a key is only ever sent to the endpoint it was saved for;
the operator's keys serve every room), and "Test the connection" asks the endpoint in
force for its models.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.validators import URLValidator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy, ngettext

from base.i18n import active_locale
from keeper.llm import config, endpoints
from keeper.llm.providers import CATALOG
from keeper.models import ModelSetting


def _providers(environment: str, without: str) -> list[tuple[str, str]]:
    return [("", gettext("(the environment's: {value})").format(value=environment or without))] + [
        (provider, provider) for provider in CATALOG
    ]


def _endpoint(label: str) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=500,
        validators=[
            URLValidator(
                schemes=["http", "https"], message=gettext_lazy("Enter an http:// or https:// address.")
            )
        ],
        help_text=gettext_lazy("Empty: the provider's own endpoint."),
    )


def _reachable(value: str) -> str:
    """An endpoint the server may connect to at all (link-local, user info and the
    like never are, not even for the operator)."""
    if value:
        try:
            endpoints.vet(value, operator=True)
        except endpoints.EndpointRefused as refused:
            raise forms.ValidationError(refused.message(active_locale())) from None
    return value


class ModelInForceForm(forms.ModelForm):
    """The chat model and the image endpoint; keys are typed, never shown back."""

    api_key = forms.CharField(
        label=gettext_lazy("API key"),
        required=False,
        max_length=500,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=gettext_lazy(
            "Leave empty to keep the key saved for this provider and endpoint "
            "(a key is only sent to the endpoint it was saved for)."
        ),
    )
    base_url = _endpoint(gettext_lazy("Endpoint (base URL)"))
    imagegen_base_url = _endpoint(gettext_lazy("Image endpoint (base URL)"))

    class Meta:
        model = ModelSetting
        fields = [
            "provider",
            "chat_model",
            "base_url",
            "imagegen_provider",
            "imagegen_model",
            "imagegen_base_url",
            "subscriptions",
        ]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["provider"] = forms.ChoiceField(
            choices=_providers(settings.TRPG_LLM_PROVIDER, gettext("none, the offline Keeper")),
            required=False,
            label=gettext("Provider"),
        )
        self.fields["subscriptions"] = forms.NullBooleanField(
            required=False,
            label=gettext("Rooms may use their keepers' own subscriptions"),
            widget=forms.Select(
                choices=[
                    (
                        "unknown",
                        gettext("(the environment's: {value})").format(
                            value=gettext("yes") if settings.TRPG_LLM_SUBSCRIPTIONS else gettext("no")
                        ),
                    ),
                    ("true", gettext("yes")),
                    ("false", gettext("no")),
                ]
            ),
            help_text=gettext(
                "ChatGPT and SuperGrok signed in by a room's keeper with .model login "
                "(TRPG_LLM__SUBSCRIPTIONS). The sign-in is the room's; its tokens are never shown."
            ),
        )
        self.fields["imagegen_provider"] = forms.ChoiceField(
            choices=_providers(settings.TRPG_IMAGEGEN_PROVIDER, gettext("none, no pictures")),
            required=False,
            label=gettext("Image provider"),
        )

    def clean_base_url(self) -> str:
        return _reachable(self.cleaned_data.get("base_url") or "")

    def clean_imagegen_base_url(self) -> str:
        return _reachable(self.cleaned_data.get("imagegen_base_url") or "")


@admin.register(ModelSetting)
class ModelSettingAdmin(admin.ModelAdmin):
    form = ModelInForceForm
    readonly_fields = ["in_force", "rooms_with_their_own"]
    fieldsets = [
        (gettext_lazy("In force now"), {"fields": ["in_force", "rooms_with_their_own"]}),
        (
            gettext_lazy(
                "The Keeper's model (server-wide: every room's Keeper uses it, unless the room chose its own)"
            ),
            {"fields": ["provider", "chat_model", "base_url", "api_key"]},
        ),
        (
            gettext_lazy("Pictures (server-wide)"),
            {"fields": ["imagegen_provider", "imagegen_model", "imagegen_base_url"]},
        ),
        (gettext_lazy("Subscriptions"), {"fields": ["subscriptions"]}),
    ]

    def get_queryset(self, request: HttpRequest) -> object:
        # Rooms' own rows are their keepers'; this page is the server-wide one.
        return super().get_queryset(request).filter(room__isnull=True)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # one row, made on first use

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        """There is one settings row: its page is the model page."""
        return HttpResponseRedirect(
            reverse("admin:keeper_modelsetting_change", args=[ModelSetting.current().pk])
        )

    def get_urls(self) -> list:
        test = path("test/", self.admin_site.admin_view(self.test_view), name="keeper_modelsetting_test")
        return [test, *super().get_urls()]

    def save_model(
        self, request: HttpRequest, obj: ModelSetting, form: ModelInForceForm, change: bool
    ) -> None:
        data = form.cleaned_data
        if data["provider"]:
            config.configure(
                None, data["provider"], data["chat_model"], data["api_key"] or None, data["base_url"]
            )
        else:
            config.reset(None)
        if data["imagegen_provider"]:
            config.configure_imagegen(
                None, data["imagegen_provider"], data["imagegen_model"], data["imagegen_base_url"]
            )
        else:
            config.clear_imagegen(None)
        ModelSetting.objects.filter(pk=obj.pk).update(subscriptions=data.get("subscriptions"))
        obj.refresh_from_db()

    @admin.display(description=gettext_lazy("in force"))
    def in_force(self, setting: ModelSetting) -> str:
        current = config.resolve(None)
        if not current.usable:
            source = gettext("nothing usable is configured: the offline sample Keeper plays")
        elif config.override_active(None):
            source = gettext("chosen here, over the environment")
        else:
            source = gettext("the environment (TRPG_LLM__*)")
        pictures = config.imagegen(None)
        at = gettext("{provider} {model} at {endpoint}")
        return format_html(
            gettext(
                "<p><b>{}</b> · model <b>{}</b> · endpoint <code>{}</code> · key {}</p><p>From: {}. "
                "Scope: server-wide, every room's Keeper but the rooms listed below.</p><p>Pictures: {}</p>"
                "<p><button type='submit' class='button' formaction='{}'>Test the connection</button></p>"
            ),
            current.provider or gettext("no provider"),
            current.chat_model or "-",
            current.base_url or "-",
            current.key_masked or gettext("none"),
            source,
            at.format(provider=pictures.provider, model=pictures.model, endpoint=pictures.base_url)
            if pictures.configured
            else gettext("off"),
            reverse("admin:keeper_modelsetting_test"),
        )

    @admin.display(description=gettext_lazy("rooms with their own model"))
    def rooms_with_their_own(self, setting: ModelSetting) -> str:
        """The rooms whose keeper chose another model (or image endpoint) for their room."""
        chosen = config.room_overrides()
        if not chosen:
            return format_html("<p>{}</p>", gettext("None: every room uses the server-wide model."))
        rows = format_html_join(
            "",
            "<li><b>{}</b>: {}</li>",
            (
                (
                    room.room,
                    " · ".join(
                        part
                        for part in (
                            gettext("{provider} / {model} at {endpoint}").format(
                                provider=room.provider, model=room.chat_model, endpoint=room.base_url
                            )
                            if room.provider
                            else "",
                            gettext("pictures: {pictures}").format(pictures=room.imagegen)
                            if room.imagegen
                            else "",
                        )
                        if part
                    ),
                )
                for room in chosen
            ),
        )
        return format_html("<ul class='room-models'>{}</ul>", rows)

    def test_view(self, request: HttpRequest) -> HttpResponse:
        """Ask the endpoint in force for its models (POST only: it reaches out)."""
        back = reverse("admin:keeper_modelsetting_change", args=[ModelSetting.current().pk])
        if request.method != "POST":
            return HttpResponseRedirect(back)
        current = config.resolve(None)
        if not current.usable:
            messages.warning(request, gettext("No model is configured: the offline sample Keeper plays."))
            return HttpResponseRedirect(back)
        try:
            models = config.fetch_models(current.provider, current.base_url, current.api_key, operator=True)
        except endpoints.EndpointRefused as refused:
            messages.error(request, refused.message(active_locale()))
            return HttpResponseRedirect(back)
        if models:
            shown = ", ".join(models[:5]) + (" …" if len(models) > 5 else "")
            missing = gettext(" ({model} is not among them)").format(model=current.chat_model)
            in_list = "" if current.chat_model in models else missing
            answered = ngettext(
                "The endpoint {endpoint} answered with {count} model: {shown}{missing}.",
                "The endpoint {endpoint} answered with {count} models: {shown}{missing}.",
                len(models),
            )
            messages.success(
                request,
                answered.format(endpoint=current.base_url, count=len(models), shown=shown, missing=in_list),
            )
        else:
            told = gettext("The endpoint {endpoint} did not answer with its models: check it and the key.")
            messages.error(request, told.format(endpoint=current.base_url))
        return HttpResponseRedirect(back)
