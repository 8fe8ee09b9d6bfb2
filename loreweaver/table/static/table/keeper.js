// The keeper's screens, over the same connection with the admin frames (the server
// answers them only for a keeper): invites, the model, backups and resets, skills,
// rule systems, module panels and the audio desk.
import { trackWord } from "./deskwords.js";
import { currentLocale, pick, t } from "./i18n.js";

function node(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "on") for (const [event, handler] of Object.entries(value)) element.addEventListener(event, handler);
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

// A key's role in the page's language ("player", "keeper" on the wire).
function roleWord(role) {
  return t(role === "keeper" ? "role-keeper" : "role-player");
}

function labelled(text, input) {
  const id = `k-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return [node("label", { for: id, text }), input];
}

export class KeeperScreens {
  /** `send(frame)` sends a frame; `say(text)` sends a line as typed; `key()` is the
   * seat's access key, for the lists the screens read over HTTP (`/table/…`). */
  constructor({ send, say, room, key, systems }) {
    this.send = send;
    this.say = say;
    this.room = room;
    this.key = key;
    this.systems = systems; // the rule systems the latest state named, with their make-character words
    this.audio = new Map(); // hash -> audio library item
    this.dialog = document.getElementById("keeper-screens");
    this.body = document.getElementById("keeper-body");
    this.status = document.getElementById("keeper-status");
    this.current = "invites";
    for (const tab of this.dialog.querySelectorAll("[data-screen]")) {
      tab.addEventListener("click", () => this.show(tab.dataset.screen));
      tab.id = `keeper-tab-${tab.dataset.screen}`;
      tab.setAttribute("aria-controls", "keeper-body");
    }
    this.dialog.querySelector("[role=tablist]").addEventListener("keydown", (event) => this.arrow(event));
    document.getElementById("keeper-close").addEventListener("click", () => this.dialog.close());
  }

  open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.show(this.current);
  }

  // The tabs as the WAI-ARIA tabs pattern has them: one tab stop (the chosen tab), the
  // arrow keys move to the next or previous tab and show it, Home and End the first and last.
  arrow(event) {
    const tabs = [...this.dialog.querySelectorAll("[role=tab]")];
    const at = tabs.indexOf(document.activeElement);
    const moves = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: tabs.length - 1 };
    if (at < 0 || !(event.key in moves)) return;
    event.preventDefault();
    const next = tabs[(moves[event.key] + tabs.length) % tabs.length];
    this.show(next.dataset.screen);
    next.focus();
  }

  show(screen) {
    this.current = screen;
    for (const tab of this.dialog.querySelectorAll("[data-screen]")) {
      const chosen = tab.dataset.screen === screen;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1;
      if (chosen) this.body.setAttribute("aria-labelledby", tab.id);
    }
    this.status.textContent = "";
    this.body.replaceChildren();
    const requests = {
      invites: { type: "admin_list_keys" },
      model: { type: "admin_get_config" },
      skills: { type: "admin_list_skills" },
      rules: { type: "admin_list_rules" },
    };
    if (requests[screen]) this.send(requests[screen]);
    if (screen === "backups") this.backups();
    if (screen === "panels") this.panels();
    if (screen === "audio") this.desk();
  }

  // A frame for the keeper's screens; true when it was one.
  frame(frame) {
    switch (frame.type) {
      case "admin_keys": if (this.current === "invites") this.invites(frame); return true;
      case "admin_config": if (this.current === "model") this.model(frame); return true;
      case "admin_models": if (this.current === "model") this.offerModels(frame); return true;
      case "admin_skills": if (this.current === "skills") this.skills(frame); return true;
      case "admin_rules": if (this.current === "rules") this.rules(frame); return true;
      case "admin_room_op":
        this.status.textContent = t(`room-op-${frame.action}`, {
          path: frame.path ?? "", rows: frame.store_rows ?? 0, undo: frame.safety_backup ?? "",
        });
        if (this.current === "backups") this.backups();
        return true;
      case "ui_manifest": if (this.current === "panels") this.panels(); return false; // a pack turned on or off
      case "admin_error": this.status.textContent = frame.message || frame.code; return true;
      case "audio_library_item": this.audio.set(frame.hash, frame); if (this.current === "audio") this.desk(); return false;
      default: return false;
    }
  }

  invites(frame) {
    const rows = frame.keys.map((key) => {
      const name = node("input", { value: key.name, "aria-label": t("rename") });
      // The role reads with the key it belongs to, never after a button ("Delete player").
      return node("li", {},
        node("span", { text: `${key.key_masked} · ${roleWord(key.role)} · ` }),
        name,
        node("button", { type: "button", text: t("rename"), on: { click: () => this.send({ type: "admin_update_key", id: key.id, name: name.value }) } }),
        node("button", {
          type: "button",
          text: key.role === "keeper" ? t("make-player") : t("make-keeper"),
          on: { click: () => this.send({ type: "admin_update_key", id: key.id, role: key.role === "keeper" ? "player" : "keeper" }) },
        }),
        node("button", { type: "button", text: t("delete"), on: { click: () => {
          // A deleted key is gone for good, and its holder is closed at once: ask first.
          if (confirm(t("delete-key-confirm", { name: key.name }))) this.send({ type: "admin_delete_key", id: key.id });
        } } }),
      );
    });
    const newName = node("input", { maxlength: "64" });
    const newRole = node("select", {}, node("option", { value: "player", text: roleWord("player") }), node("option", { value: "keeper", text: roleWord("keeper") }));
    const form = node("form", { class: "mint", on: { submit: (event) => {
      event.preventDefault();
      this.send({ type: "admin_mint_key", name: newName.value.trim(), role: newRole.value });
    } } }, ...labelled(t("key-name"), newName), ...labelled(t("role"), newRole), node("button", { type: "submit", text: t("mint") }));
    this.body.replaceChildren(node("ul", { class: "keys" }, ...rows), form);
    if (frame.minted) {
      // The new key is shown this once: as an invite link, selectable whole, with a copy button.
      const link = `${location.origin}/#key=${encodeURIComponent(frame.minted.key)}`;
      const field = node("input", { id: "invite-link", readonly: "", value: link, "aria-label": t("invite") });
      field.addEventListener("focus", () => field.select());
      const copy = node("button", { type: "button", text: t("copy"), on: { click: async () => {
        field.select();
        try { await navigator.clipboard.writeText(link); this.status.textContent = t("copied"); } catch { document.execCommand?.("copy"); }
      } } });
      this.body.append(node("div", { class: "minted", role: "status" },
        node("p", { text: t("minted", { name: frame.minted.name, role: roleWord(frame.minted.role) }) }), field, copy));
    }
  }

  model(frame) {
    // "offline" is a provider like the others: no endpoint, its models the offline Keeper's.
    const provider = node("select", {}, ...frame.providers.map((id) =>
      node("option", { value: id, text: id === "offline" ? t("no-provider") : id })));
    provider.value = frame.provider;
    provider.addEventListener("change", () => this.send({ type: "admin_list_models", provider: provider.value }));
    const chatModel = node("input", { value: frame.chat_model ?? "", list: "keeper-models" });
    const baseUrl = node("input", { value: frame.base_url ?? "", type: "url" });
    const key = node("input", { type: "password", autocomplete: "new-password", placeholder: frame.api_key_masked || "" });
    const form = node("form", { class: "model", on: { submit: (event) => {
      event.preventDefault();
      const change = { type: "admin_set_model", provider: provider.value, chat_model: chatModel.value.trim() };
      if (baseUrl.value.trim() !== (frame.base_url ?? "")) change.base_url = baseUrl.value.trim();
      if (key.value) change.api_key = key.value;
      this.send(change);
      key.value = "";
    } } },
    ...labelled(t("provider"), provider), ...labelled(t("chat-model"), chatModel), ...labelled(t("endpoint"), baseUrl),
    ...labelled(t("api-key"), key), node("button", { type: "submit", text: t("save") }));
    const note = frame.using_demo ? node("p", { text: t("offline-keeper") }) : "";
    this.body.replaceChildren(form, note, node("datalist", { id: "keeper-models" }));
    this.send({ type: "admin_list_models", provider: frame.provider });
  }

  // The models the chosen provider's endpoint lists, offered under the model field.
  offerModels(frame) {
    const list = document.getElementById("keeper-models");
    const named = (id) => (t(`model-${id}`) === `model-${id}` ? id : t(`model-${id}`));
    list?.replaceChildren(...frame.models.map((id) => node("option", { value: id, text: named(id) })));
  }

  skills(frame) {
    const toggled = this.toggled;
    this.toggled = null;
    this.body.replaceChildren(node("ul", { class: "skills" }, ...frame.skills.map((skill) => {
      const box = node("input", { type: "checkbox" });
      box.checked = skill.enabled;
      box.dataset.skill = skill.id;
      box.addEventListener("change", () => {
        this.toggled = skill.id;
        this.send({ type: "admin_enable_skill", id: skill.id, on: box.checked });
      });
      return node("li", {}, ...labelled(`${skill.name}: ${skill.description}`, box).reverse());
    })));
    // The answer to a click: the list as the server now has it, the status saying what
    // changed, and the focus back on the box (the list is drawn anew).
    const skill = toggled && frame.skills.find((each) => each.id === toggled);
    if (skill) {
      this.status.textContent = t(skill.enabled ? "skill-on" : "skill-off", { name: skill.name });
      this.body.querySelector(`[data-skill="${CSS.escape(skill.id)}"]`)?.focus();
    }
  }

  rules(frame) {
    const words = new Map(this.systems().map((system) => [system.id, system.make_char]));
    this.body.replaceChildren(node("ul", {}, ...frame.systems.map((system) => {
      const made = words.get(system.id) ? ` · ${t("make-char", { word: `.${words.get(system.id)}` })}` : "";
      // The system's display name (additive `name`, {en, zh}); its id from a server without it.
      const name = system.name ? pick(system.name) : system.id;
      return node("li", { text: `${name}${system.built_in ? ` (${t("built-in")})` : ""}${made}` });
    })));
  }

  // A list the protocol's admin frames do not carry, read with the seat's key.
  async fetchList(path) {
    const answer = await fetch(path, { headers: { Authorization: `Bearer ${this.key()}` }, cache: "no-store" });
    if (!answer.ok) throw new Error(String(answer.status));
    return answer.json();
  }

  // The browser follows a link that opens this one backup for a minute, so the archive
  // (the whole room, media and all) streams to its disk, never into this page's memory.
  async download(name) {
    let url;
    try { url = (await this.fetchList(`/table/backups/${encodeURIComponent(name)}/link`)).url; } catch { this.status.textContent = t("download-failed", { name }); return; }
    node("a", { href: url, download: name }).click();
  }

  async backups() {
    const scope = node("select", {}, ...["story", "chars", "all"].map((id) => node("option", { value: id, text: t(`scope-${id}`) })));
    const list = node("ul", { class: "backups", "aria-label": t("backups") }, node("li", { text: t("loading") }));
    this.body.replaceChildren(
      node("button", { type: "button", text: t("export"), on: { click: () => this.send({ type: "admin_export_room", room: this.room() }) } }),
      list,
      node("form", { on: { submit: (event) => {
        event.preventDefault();
        if (confirm(t("reset-confirm"))) this.send({ type: "admin_reset_room", room: this.room(), scope: scope.value });
      } } }, ...labelled(t("reset-scope"), scope), node("button", { type: "submit", text: t("reset") })),
    );
    let found;
    try { found = (await this.fetchList("/table/backups")).backups; } catch { list.replaceChildren(node("li", { text: t("list-failed") })); return; }
    if (!found.length) { list.replaceChildren(node("li", { text: t("no-backups") })); return; }
    list.replaceChildren(...found.map((backup) => node("li", {},
      node("span", { class: "name", text: backup.name }),
      node("span", { class: "meta", text: ` ${new Date(backup.created).toLocaleString(currentLocale() === "zh" ? "zh-CN" : "en")} · ${Math.max(1, Math.round(backup.size / 1024))} KB ` }),
      node("button", { type: "button", text: t("import"), on: { click: () => {
        if (confirm(t("restore-confirm", { name: backup.name }))) this.send({ type: "admin_import_room", path: backup.name, room: this.room() });
      } } }),
      node("button", { type: "button", text: t("download"), on: { click: () => this.download(backup.name) } }),
    )));
  }

  async panels() {
    const list = node("ul", { class: "packs" }, node("li", { text: t("loading") }));
    this.body.replaceChildren(node("p", { text: t("panels-help") }), list);
    let found;
    try { found = (await this.fetchList(`/table/packs?locale=${currentLocale()}`)).packs; } catch { list.replaceChildren(node("li", { text: t("list-failed") })); return; }
    if (!found.length) { list.replaceChildren(node("li", { text: t("no-packs") })); return; }
    list.replaceChildren(...found.map((pack) => node("li", {},
      node("span", { class: "name", text: `${pack.title} ` }),
      node("span", { class: "meta", text: `(${pack.id} ${pack.version} · ${t("panel-count", { count: pack.panels })}) ` }),
      node("strong", { text: pack.on ? t("pack-on") : t("pack-off") }),
      node("button", { type: "button", text: pack.on ? t("disable") : t("enable"), on: { click: () => this.say(`.panels ${pack.on ? "disable" : "enable"} ${pack.id}`) } }),
    )));
  }

  desk() {
    const library = [...this.audio.values()];
    const rows = library.map((item) => {
      const name = item.title || item.name;
      // The track by its title (the story shows the line as sent), its hash only when
      // the title would not name it alone.
      const track = trackWord(item, library);
      const play = (layer, line) => node("button", {
        type: "button", text: `${t(layer)} ▶`, "aria-label": t("play-on", { layer: t(layer), name }), on: { click: () => this.say(line) },
      });
      return node("li", {}, node("bdi", { class: "track", text: name }),
        node("span", { class: "plays" },
          ...["bgm", "ambience"].map((layer) => play(layer, `.${layer} play ${track} --loop`)),
          play("sfx", `.sfx ${track}`)));
    });
    const stops = ["bgm", "ambience", "sfx"].map((layer) => node("button", {
      type: "button", text: `${t(layer)} ■`, "aria-label": t("stop-layer", { layer: t(layer) }), on: { click: () => this.say(`.${layer} stop`) },
    }));
    const empty = rows.length ? [] : [node("p", { class: "hint", text: t("desk-empty") })];
    this.body.replaceChildren(...empty, node("ul", { class: "desk" }, ...rows), node("p", { class: "stops" }, ...stops));
  }
}
