// A roll is shown once, as its card. A command's roll (`.r`, `.ra`, `.sc`, an inline
// `[[1d6]]`) is answered with its dice frame and then a text line saying the same
// roll, which the wire keeps for clients that draw no cards; this page folds that
// line into the card it repeats (the card keeps its words, for a hover and a screen
// reader) instead of drawing the roll a second time.
import { t } from "./i18n.js";
import { element } from "./render.js";

/** Whether `text` names the number `total` as a whole number. */
function names(text, total) {
  return new RegExp(`(^|[^\\d])${Number(total)}(?![\\d])`).test(String(text));
}

export class RollLines {
  constructor() {
    this.cards = []; // the cards drawn since the last other frame: {frame, item}
  }

  /** A dice card was drawn for `frame`: what only the roll's line said goes on it too
   *  (a sanity check's loss and what is left), and it may be the line's roll. */
  drawn(frame, item) {
    const detail = frame.detail ?? {};
    if (Number.isFinite(detail.loss)) {
      const loss = Number.isFinite(detail.remaining)
        ? t("roll-loss-left", { loss: detail.loss, remaining: detail.remaining })
        : t("roll-loss", { loss: detail.loss });
      item.querySelector(".dice")?.append(element("span", "loss", loss));
    }
    this.cards.push({ frame, item });
  }

  /** Whether `frame` is the text line of the rolls just drawn, so it is not drawn
   *  again: a system line that comes right after them and names each one's total.
   *  Any other frame ends the run of cards. */
  absorbs(frame) {
    if (frame.type === "dice") return false;
    const cards = this.cards;
    this.cards = [];
    if (!cards.length || frame.type !== "narrative" || frame.speaker !== "system" || !frame.text) return false;
    if (!cards.every(({ frame: dice }) => names(frame.text, dice.total))) return false;
    for (const { item } of cards) {
      item.title = frame.text;
      item.querySelector(".dice")?.setAttribute("aria-description", frame.text);
      item.dataset.line = frame.id ?? "";
    }
    return true;
  }
}
