// Turning frames into the page: story lines, dice cards, `ui` blocks (the performance
// templates included) and module panels. Every text goes in as text, never as HTML.
import { currentLocale, pick, t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { resolvePanelBlocks } from "./templates.js";

/** A new element with a class and a text (never HTML). */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// How the Keeper's unnamed lines are signed: "AI Keeper", or the offline Keeper's name
// while no model is connected (`offline_keeper` in the welcome's features).
let keeperWord = "keeper";

export function signKeeperAs(word) {
  keeperWord = word;
}

export function storyLine(frame) {
  const item = element("li", frame.speaker === "kp" ? "kp" : frame.speaker);
  item.dataset.id = frame.id ?? "";
  const who = frame.speaker === "kp" ? frame.name || t(keeperWord) : frame.name;
  // Names are isolated: one written right to left never reorders the line around it.
  if (who && frame.speaker !== "system") item.append(element("bdi", "who", who));
  const body = element("div", "text");
  if (frame.format === "markdown") body.append(renderMarkdown(frame.text));
  else { body.textContent = frame.text; body.classList.add("plain"); }
  item.append(body);
  return item;
}

export function systemLine(frame) {
  const item = element("li", `system ${frame.level === "warn" ? "warn" : ""}`);
  item.append(renderMarkdown(frame.text));
  return item;
}

// --- skill names --------------------------------------------------------------------

let skillPacks = null;

// The installed packs' skill names, which the page carries (`#skill-labels`).
function packsOnPage() {
  if (skillPacks === null) {
    try {
      skillPacks = JSON.parse(document.getElementById("skill-labels")?.textContent ?? "[]");
    } catch {
      skillPacks = [];
    }
    if (!Array.isArray(skillPacks)) skillPacks = [];
  }
  return skillPacks;
}

// A skill id as words, for one no pack labels: "spot_hidden" reads "Spot hidden".
export function readable(name) {
  const words = String(name).replaceAll("_", " ").trim().split(/\s+/).join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** How a skill named on a dice frame reads in the page's language. A frame does not
 *  name its rule system, so the packs rolling its die (from `expr`) are asked first. */
export function skillLabel(name, expr = "") {
  const key = String(name).trim().toLowerCase();
  const die = /d(100|20)(?!\d)/i.exec(String(expr ?? ""));
  const roll = die ? `d${die[1]}` : "";
  const packs = packsOnPage();
  const ordered = [...packs.filter((pack) => pack?.roll === roll), ...packs.filter((pack) => pack?.roll !== roll)];
  for (const pack of ordered) {
    const names = pack?.names;
    // An own property only: a skill called "constructor" is just a name.
    if (names && typeof names === "object" && Object.hasOwn(names, key)) return pick(names[key]);
  }
  return readable(name);
}

function diceSide(side) {
  const part = element("span", "side");
  part.textContent = `${side.name ?? ""} ${side.skill ?? ""} ${side.total ?? ""}/${side.target ?? ""}`.trim();
  return part;
}

export function diceCard(frame) {
  const item = element("li", "dice-line");
  const card = element("div", "dice");
  const outcome = frame.outcome ?? {};
  if (outcome.success === true) card.classList.add("success");
  if (outcome.success === false) card.classList.add("failure");
  if (outcome.critical) card.classList.add("critical");
  if (outcome.fumble) card.classList.add("fumble");
  if (outcome.tier !== undefined) card.dataset.tier = String(outcome.tier);
  card.setAttribute("role", "group");
  const what = frame.skill ? skillLabel(frame.skill, frame.expr) : frame.expr;
  card.setAttribute("aria-label", `${frame.actor}: ${what} ${frame.total} ${outcome.label ?? ""}`.trim());
  card.append(element("bdi", "who", frame.actor));
  card.append(element("span", "what", what));
  card.append(element("span", "total", frame.total));
  if (frame.target !== undefined) card.append(element("span", "target", `/ ${frame.target}`));
  if (outcome.label) card.append(element("span", "label", outcome.label));
  if (frame.kind === "opposed" && frame.detail) {
    for (const side of [frame.detail.left, frame.detail.right]) if (side) card.append(diceSide(side));
  }
  if (Array.isArray(frame.rolls) && frame.rolls.length > 1) card.append(element("span", "rolls", `[${frame.rolls.join(", ")}]`));
  item.append(card);
  return item;
}

// --- ui blocks --------------------------------------------------------------------

export class Blocks {
  /** `send(text)` sends an input line; `picture(hash)` resolves to an object URL;
   *  `variables()` gives the viewer's own variables by id. It draws blocks as the
   *  server sent them (a `ui` frame's) or as templates.js resolved them (a panel's):
   *  plain values, or an `{en, zh}` text. */
  constructor({ send, picture, variables, intent }) {
    this.send = send;
    this.picture = picture;
    this.variables = variables;
    this.intent = intent;
  }

  value(value) {
    return value && typeof value === "object" && !Array.isArray(value) ? pick(value) : value;
  }

  render(blocks, { panel = null } = {}) {
    const box = element("div", "ui");
    for (const block of blocks ?? []) {
      for (const node of this.block(block, panel)) box.append(node);
    }
    return box;
  }

  // A module panel's template, drawn as this viewer sees it (templates.js decides what
  // shows, by the rules the server's `.panel` text follows too).
  panel(blocks, panel) {
    return this.render(resolvePanelBlocks(blocks, [...this.variables().values()], currentLocale()), { panel });
  }

  block(block, panel) {
    if (!block || typeof block !== "object") return [];
    const v = (name) => this.value(block[name]);
    switch (block.kind) {
      case "meter": {
        const row = element("div", "resource");
        const meter = element("meter");
        meter.min = Number(v("min")); meter.max = Number(v("max")); meter.value = Number(v("value"));
        meter.setAttribute("aria-label", String(v("label")));
        row.append(element("span", "", v("label")), meter, element("span", "", `${v("value")}/${v("max")}`));
        return [row];
      }
      case "stat": return [element("div", "stat", `${v("label")}: ${v("value")}`)];
      case "badge": return [element("span", `badge ${block.tone ?? "info"}`, v("label"))];
      case "text": return [element("p", block.style ?? "", v("text"))];
      case "divider": return [element("hr")];
      case "choices": {
        const row = element("div", "choices");
        row.setAttribute("role", "group");
        if (block.prompt) row.setAttribute("aria-label", String(v("prompt")));
        if (block.prompt) row.append(element("span", "prompt", v("prompt")));
        for (const option of block.options ?? []) {
          const button = element("button", "choice", this.value(option.label));
          button.type = "button";
          button.addEventListener("click", () => {
            if (panel) this.intent(panel, "choice", option.input);
            else this.send(option.input);
          });
          row.append(button);
        }
        return [row];
      }
      case "image": {
        const figure = element("figure", "picture");
        const image = element("img", "picture");
        image.alt = String(v("alt") || v("caption") || "");
        this.picture(block.hash).then((url) => { image.src = url; }).catch(() => {});
        figure.append(image);
        if (block.caption) figure.append(element("figcaption", "", v("caption")));
        return [figure];
      }
      case "letter": {
        const letter = element("article", "letter");
        letter.setAttribute("aria-label", "letter");
        if (block.date) letter.append(element("div", "meta", v("date")));
        if (block.to) letter.append(element("div", "meta", v("to")));
        letter.append(element("div", "body", v("body")));
        if (block.from) letter.append(element("div", "meta from", `— ${v("from")}`));
        return [letter];
      }
      case "clipping": {
        const clipping = element("article", "clipping");
        clipping.append(element("h3", "", v("headline")));
        if (block.source || block.date) clipping.append(element("div", "meta", [v("source"), v("date")].filter(Boolean).join(", ")));
        clipping.append(element("p", "", v("body")));
        return [clipping];
      }
      case "title_card": {
        const card = element("section", "title-card");
        if (block.act) card.append(element("div", "act", v("act")));
        card.append(element("h3", "", v("title")));
        if (block.subtitle) card.append(element("div", "subtitle", v("subtitle")));
        return [card];
      }
      case "map_pin": {
        const map = element("figure", "map");
        const image = element("img");
        image.alt = String(v("label"));
        this.picture(block.hash).then((url) => { image.src = url; }).catch(() => {});
        const pin = element("span", "pin", v("label"));
        pin.style.left = `${Number(v("x")) * 100}%`;
        pin.style.top = `${Number(v("y")) * 100}%`;
        map.append(image, pin);
        if (block.note) map.append(element("figcaption", "", v("note")));
        return [map];
      }
      default:
        return []; // an unknown kind: drawn as nothing, as the protocol asks
    }
  }
}

export function panelBox(panel, blocks, { open }) {
  const box = element("section", "panel");
  box.dataset.panel = panel.id;
  box.setAttribute("aria-label", pick(panel.title));
  box.append(element("h3", "", pick(panel.title)));
  if (panel.tier === 2) {
    const fallback = panel.fallback ? blocks.panel(panel.fallback, panel.id) : element("p", "", t("scripts-off"));
    box.append(fallback);
    const button = element("button", "", t("open"));
    button.type = "button";
    button.addEventListener("click", () => open(panel, box));
    box.append(button);
  } else {
    box.append(blocks.panel(panel.blocks, panel.id));
  }
  return box;
}
