// Three audio layers (music, ambience, effects) following `audio_control` and
// `audio_state`. A late joiner starts a playing layer where the table is. Browsers
// block sound until the page is clicked: the first refused play shows a button.
import { t } from "./i18n.js";
import { NowPlaying } from "./nowplaying.js";

export class AudioDesk {
  constructor(container, unlockButton, media) {
    this.media = media;
    this.unlock = unlockButton;
    this.layers = {};
    this.strip = new NowPlaying(document.getElementById("now-playing"));
    for (const name of ["bgm", "ambience", "sfx"]) {
      const audio = new Audio();
      const row = document.createElement("label");
      row.className = "volume";
      const slider = document.createElement("input");
      slider.type = "range"; slider.min = "0"; slider.max = "1"; slider.step = "0.05"; slider.value = "0.8";
      // Labelled again whenever the page's language is set (`setLocale`): the desk is
      // built before the join chooses it.
      slider.dataset.i18nVolume = name;
      slider.setAttribute("aria-label", t("volume", { layer: t(name) }));
      const caption = document.createElement("span");
      caption.dataset.i18n = name;
      caption.textContent = t(name);
      row.append(caption, slider);
      container.append(row);
      const layer = { audio, slider, volume: 1 };
      slider.addEventListener("input", () => { audio.volume = layer.volume * Number(slider.value); });
      this.layers[name] = layer;
      // A track played once (an effect, or music told `once`) leaves the strip when done.
      audio.addEventListener("ended", () => { if (!audio.loop) this.strip.stop(name); });
    }
    this.unlock.addEventListener("click", () => {
      this.unlock.hidden = true;
      for (const layer of Object.values(this.layers)) if (layer.wanted) this.play(layer);
    });
  }

  play(layer) {
    layer.audio.play().catch(() => { this.unlock.hidden = false; });
  }

  async start(name, hash, { loop = false, volume = 1, at = 0 } = {}) {
    const layer = this.layers[name];
    if (!layer || !hash) return;
    layer.audio.src = await this.media.url(hash);
    layer.audio.loop = loop;
    layer.volume = volume ?? 1;
    layer.audio.volume = layer.volume * Number(layer.slider.value);
    layer.audio.currentTime = Math.max(0, at);
    layer.wanted = true;
    this.play(layer);
  }

  control(frame) {
    const layer = this.layers[frame.layer];
    if (!layer) return;
    switch (frame.action) {
      case "play":
        this.strip.play(frame.layer, frame);
        this.start(frame.layer, frame.hash, { loop: frame.loop, volume: frame.volume, at: (frame.position_ms ?? 0) / 1000 });
        break;
      case "stop":
        this.strip.stop(frame.layer);
        layer.wanted = false; layer.audio.pause(); layer.audio.currentTime = 0;
        break;
      case "pause":
        this.strip.pause(frame.layer, true);
        layer.wanted = false; layer.audio.pause();
        break;
      case "resume":
        this.strip.pause(frame.layer, false);
        layer.wanted = true;
        if (frame.position_ms !== undefined) layer.audio.currentTime = frame.position_ms / 1000;
        this.play(layer);
        break;
      case "volume":
        layer.volume = frame.volume ?? layer.volume;
        layer.audio.volume = layer.volume * Number(layer.slider.value);
        break;
    }
  }

  /** A library entry (`audio_library_item`): the title the strip names its track by. */
  titled(item) {
    this.strip.titled(item);
  }

  state(frame) {
    for (const entry of frame.layers ?? []) {
      if (!entry.hash) continue;
      if (!entry.playing) { this.strip.play(entry.layer, entry); this.strip.pause(entry.layer, true); continue; }
      this.strip.play(entry.layer, entry);
      const at = entry.started_at ? Date.now() / 1000 - entry.started_at : 0;
      this.start(entry.layer, entry.hash, { loop: entry.loop, volume: entry.volume, at });
    }
  }
}
