// A module panel's template blocks made into the blocks this viewer sees: bindings
// read from the viewer's own `state.variables`, `visible_when` decided, repeats made.
// The rules are the shared conformance table's (packs/tests/fixtures/
// panel_template_vectors.json), which the server's `.panel` text (packs/panel_templates.py)
// runs too:
// - a variable flagged `hidden` (an imported card's leaf the keeper has not exposed)
//   is absent to everything here;
// - a binding this viewer cannot read drops its block when the field is required, the
//   field only when it is optional; an undecidable `visible_when` hides;
// - texts in the viewer's language, then English, then any; a number or a boolean
//   written into a text reads as String() writes it.

import { evaluate } from "./conditions.js";

export const MAX_REPEAT = 32;
const LEAVES = ["id", "label", "value"];
const TONES = ["info", "warn", "danger"];
const TEXT_KINDS = {
  letter: [["body"], ["from", "to", "date"]],
  clipping: [["headline", "body"], ["source", "date"]],
  title_card: [["title"], ["subtitle", "act"]],
  map_pin: [["label"], ["note"]],
};
const MISSING = Symbol("missing");

const isObject = (value) => value !== null && typeof value === "object";

/** A text in `locale`, else English, else any; a plain string as it is; the first
 *  non-empty string of an array; null when there is nothing to show. */
export function pickText(value, locale) {
  if (typeof value === "string") return value;
  if (!isObject(value)) return null;
  const candidates = Array.isArray(value)
    ? value
    : [value[String(locale).slice(0, 2)], value.en, ...Object.values(value)];
  for (const candidate of candidates) if (typeof candidate === "string" && candidate) return candidate;
  return null;
}

class Viewer {
  constructor(variables, locale) {
    this.variables = (Array.isArray(variables) ? variables : []).filter((entry) => isObject(entry) && !entry.hidden);
    this.locale = locale || "en";
    this.values = new Map(); // a Map: an id like "__proto__" is just an id
    for (const entry of this.variables) if (!this.values.has(String(entry.id))) this.values.set(String(entry.id), entry.value);
  }

  shows(block) {
    if (!("visible_when" in block)) return true;
    return typeof block.visible_when === "string" && evaluate(block.visible_when, this.values);
  }

  scalar(value, leaf) {
    if (isObject(value) && !Array.isArray(value) && "$var" in value) {
      if (typeof value.$var !== "string") return MISSING;
      const found = this.variables.find((entry) => entry.id === value.$var);
      return found === undefined ? MISSING : found.value;
    }
    if (isObject(value) && !Array.isArray(value) && "$leaf" in value) {
      if (!leaf || !LEAVES.includes(value.$leaf)) return MISSING;
      return leaf[value.$leaf];
    }
    return value;
  }

  text(value, leaf) {
    const resolved = this.scalar(value, leaf);
    if (resolved === MISSING) return null;
    if (typeof resolved === "number" || typeof resolved === "boolean") return String(resolved);
    return pickText(resolved, this.locale);
  }

  number(value, leaf) {
    const resolved = this.scalar(value, leaf);
    return typeof resolved === "number" && Number.isFinite(resolved) ? resolved : null;
  }

  block(block, leaf = null) {
    if (!isObject(block) || Array.isArray(block) || "repeat" in block || !this.shows(block)) return null;
    const kind = block.kind;
    if (kind === "divider") return { kind: "divider" };
    if (kind === "meter") {
      const label = this.text(block.label, leaf);
      const [value, min, max] = ["value", "min", "max"].map((name) => this.number(block[name], leaf));
      if (label === null || value === null || min === null || max === null || max <= min) return null;
      return { kind: "meter", label, value, min, max };
    }
    if (kind === "stat") {
      const label = this.text(block.label, leaf);
      const value = this.scalar(block.value, leaf);
      if (label === null || value === MISSING) return null;
      if (typeof value === "number" || typeof value === "boolean") return { kind: "stat", label, value };
      const text = pickText(value, this.locale);
      return text === null ? null : { kind: "stat", label, value: text };
    }
    if (kind === "badge") {
      const label = this.text(block.label, leaf);
      if (label === null) return null;
      const tone = this.scalar(block.tone, leaf);
      return TONES.includes(tone) ? { kind: "badge", label, tone } : { kind: "badge", label };
    }
    if (kind === "text") {
      const text = this.text(block.text, leaf);
      if (text === null) return null;
      return "style" in block ? { kind: "text", text, style: block.style } : { kind: "text", text };
    }
    if (kind === "image") {
      if (typeof block.hash !== "string" || !block.hash) return null;
      const image = { kind: "image", hash: block.hash, ...media(block) };
      for (const name of ["caption", "alt"]) {
        const text = this.text(block[name], leaf);
        if (text !== null) image[name] = text;
      }
      return image;
    }
    if (Object.hasOwn(TEXT_KINDS, kind)) return this.texts(block, kind, leaf);
    if (kind === "choices") return this.choices(block, leaf);
    return null; // a kind this table does not know draws as nothing
  }

  texts(block, kind, leaf) {
    const [required, optional] = TEXT_KINDS[kind];
    const drawn = { kind };
    for (const name of [...required, ...optional]) {
      const text = this.text(block[name], leaf);
      if (text === null && required.includes(name)) return null;
      if (text !== null) drawn[name] = text;
    }
    if (kind === "map_pin") {
      const x = this.number(block.x, leaf);
      const y = this.number(block.y, leaf);
      if (typeof block.hash !== "string" || !block.hash || x === null || y === null) return null;
      // x and y are fractions of the map: a pin outside it sits on its edge.
      Object.assign(drawn, { hash: block.hash, ...media(block), x: Math.min(1, Math.max(0, x)), y: Math.min(1, Math.max(0, y)) });
    }
    return drawn;
  }

  choices(block, leaf) {
    const options = [];
    for (const option of Array.isArray(block.options) ? block.options : []) {
      if (!isObject(option)) continue;
      const label = this.text(option.label, leaf);
      if (label !== null && typeof option.id === "string" && typeof option.input === "string") {
        options.push({ id: option.id, label, input: option.input });
      }
    }
    if (options.length === 0) return null;
    const prompt = "prompt" in block ? this.text(block.prompt, leaf) : null;
    return prompt === null ? { kind: "choices", options } : { kind: "choices", prompt, options };
  }
}

function media(block) {
  const found = {};
  for (const name of ["mime", "size"]) if (name in block) found[name] = block[name];
  return found;
}

/** `blocks` (a panel's template, as `ui_manifest` carries it) as the viewer with
 *  `variables` (their `state.variables`, an array) sees them in `locale`. */
export function resolvePanelBlocks(blocks, variables, locale) {
  const viewer = new Viewer(variables, locale);
  const drawn = [];
  for (const block of Array.isArray(blocks) ? blocks : []) {
    if (isObject(block) && !Array.isArray(block) && "repeat" in block) {
      const spec = block.repeat;
      if (!viewer.shows(block) || !isObject(spec)) continue; // a repeat's own gate hides the whole list
      const { prefix, block: inner } = spec;
      // An empty prefix would match everything; repeats do not nest.
      if (typeof prefix !== "string" || !prefix || !isObject(inner) || "repeat" in inner) continue;
      // Matched first, then capped: a match deep in a long card import still counts.
      const matches = viewer.variables.filter((entry) => String(entry.id ?? "").startsWith(prefix));
      for (const match of matches.slice(0, MAX_REPEAT)) {
        const one = viewer.block(inner, match);
        if (one !== null) drawn.push(one);
      }
      continue;
    }
    const one = viewer.block(block);
    if (one !== null) drawn.push(one);
  }
  return drawn;
}
