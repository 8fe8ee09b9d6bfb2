// A player's first screen: a card at the end of the story, while the player has no
// character, that says what to do: the room they joined, the rule systems it plays,
// a button for each system's make-a-character command (`state.systems[].make_char`)
// and for each of the module's characters still free to claim (`state.pregens`), and
// how to act once they have one. It goes when they have a character.
import { pick, t } from "./i18n.js";
import { element } from "./render.js";

// The rule systems' display names the page carries (`#skill-labels`: id, name {en, zh}).
function systemNames() {
  try {
    const packs = JSON.parse(document.getElementById("skill-labels")?.textContent ?? "[]");
    return new Map((Array.isArray(packs) ? packs : []).map((pack) => [pack?.id, pack?.name]));
  } catch {
    return new Map();
  }
}

export class FirstScreen {
  /** `send(text)` sends an input line; `append(item)` adds to the story; `you()` is the
   *  welcome's member; `room()` the room's name. */
  constructor({ send, append, you, room }) {
    this.send = send;
    this.append = append;
    this.you = you;
    this.room = room;
    this.card = null;
    this.last = null;
    this.names = null;
    // The page's language was switched (i18n.js marks it on <html lang>): said again.
    new MutationObserver(() => { if (this.card && this.last) this.draw(this.last); })
      .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  }

  /** Every `state`: the card is drawn (or drawn again) while a player has no character. */
  state(frame) {
    if (this.you()?.role !== "player" || frame.character) {
      this.card?.remove();
      this.card = null;
      return;
    }
    this.last = frame;
    this.draw(frame);
  }

  systemName(id) {
    this.names ??= systemNames();
    return pick(this.names.get(id)) || id;
  }

  button(label, line) {
    const button = element("button", "", label);
    button.type = "button";
    button.addEventListener("click", () => this.send(line));
    return button;
  }

  draw(frame) {
    const card = element("li", "welcome-card first-screen");
    card.id = "first-screen";
    card.append(element("h2", "", t("first-title", { room: this.room() ?? "" })));
    card.append(element("p", "", t("first-about")));
    const systems = (frame.systems ?? []).filter((system) => system?.make_char);
    if (systems.length) {
      const names = systems.map((system) => this.systemName(system.id)).join(t("list-and"));
      card.append(element("p", "", t("first-systems", { systems: names })));
      card.append(element("h3", "", t("first-make")));
      const row = element("div", "choices");
      for (const system of systems) {
        row.append(this.button(`.${system.make_char} · ${this.systemName(system.id)}`, `.${system.make_char}`));
      }
      card.append(row);
      card.append(element("p", "hint", t("first-make-hint", { example: `.${systems[0].make_char} ${t("example-name")}` })));
    }
    const free = (frame.pregens ?? []).filter((pregen) => !pregen.claimed_by);
    if (free.length) {
      card.append(element("h3", "", t("first-claim")));
      const row = element("div", "choices");
      for (const pregen of free) row.append(this.button(pregen.name, `.pc claim ${pregen.name}`));
      card.append(row);
    }
    card.append(element("p", "hint", t("first-then")));
    if (this.card?.isConnected) this.card.replaceWith(card);
    else this.append(card);
    this.card = card;
  }
}
