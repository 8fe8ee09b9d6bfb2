// What the table hears now, for every member: one strip above the story naming the
// track on each playing layer ("Music: Harbour at night · Ambience: Gulls"), by the
// title the room's audio library gives it (an `audio_library_item`, whose title the
// keeper may set later with `.audio set`), else the title or file name its frame names.
import { t } from "./i18n.js";

const LAYERS = ["bgm", "ambience", "sfx"];

export class NowPlaying {
  constructor(strip) {
    this.strip = strip;
    this.playing = new Map(); // layer -> {hash, label}
    this.titles = new Map(); // hash -> the library's title or name
    this.paused = new Set();
  }

  /** A layer started a track (an `audio_control` play, or a layer of `audio_state`). */
  play(layer, frame) {
    this.playing.set(layer, { hash: frame.hash, label: frame.title || frame.name || "" });
    this.paused.delete(layer);
    this.draw();
  }

  stop(layer) {
    this.playing.delete(layer);
    this.paused.delete(layer);
    this.draw();
  }

  pause(layer, paused) {
    if (paused) this.paused.add(layer); else this.paused.delete(layer);
    this.draw();
  }

  /** A library entry: its title names the track wherever it plays. */
  titled(item) {
    if (!item?.hash) return;
    this.titles.set(item.hash, item.title || item.name || "");
    this.draw();
  }

  /** The name a track reads by: the library's title, else its frame's. */
  label(entry) {
    return this.titles.get(entry.hash) || entry.label || t("untitled");
  }

  draw() {
    const parts = LAYERS.filter((layer) => this.playing.has(layer)).map((layer) => {
      const part = document.createElement("span");
      part.className = "layer";
      part.dataset.layer = layer;
      const name = document.createElement("bdi"); // a title in any script reads on its own
      name.textContent = this.label(this.playing.get(layer));
      part.append(t("layer-is", { layer: t(layer) }), name, this.paused.has(layer) ? t("paused") : "");
      return part;
    });
    this.strip.hidden = !parts.length;
    if (!parts.length) { this.strip.replaceChildren(); return; }
    const note = document.createElement("span");
    note.className = "note";
    note.setAttribute("aria-hidden", "true");
    note.textContent = "♪";
    const label = document.createElement("span");
    label.className = "visually-hidden";
    label.textContent = t("layer-is", { layer: t("now-playing") });
    this.strip.replaceChildren(note, label);
    parts.forEach((part, i) => this.strip.append(i ? " · " : "", part));
  }
}
