// Leaving the table, and coming back: "Leave" asks first (a dialog of the page, in its
// language, Escape or "Stay" keeps the seat), and a left seat is remembered by this
// browser (its local storage, not the tab's) so that its join screen offers "Rejoin as
// <name>" until the person forgets it there. A misclick on Leave then costs nothing:
// without this, the key (shown to its keeper once, as a link) was gone with the tab.
import { t } from "./i18n.js";

const LEFT = "loreweaver-left"; // [{key, name, room}], newest first
const KEEP = 5; // a few rooms at most: an old key is forgotten before it piles up

/** The seats this browser left and has not forgotten, newest first. */
export function leftSeats() {
  try {
    const seats = JSON.parse(localStorage.getItem(LEFT) || "[]");
    return Array.isArray(seats) ? seats.filter((seat) => seat && typeof seat.key === "string" && seat.key) : [];
  } catch {
    return [];
  }
}

function keep(seats) {
  if (seats.length) localStorage.setItem(LEFT, JSON.stringify(seats.slice(0, KEEP)));
  else localStorage.removeItem(LEFT);
}

const LEFT_IN = "loreweaver-left-in"; // the page's language as it was left, for the join screen after it

/** Remember a seat just left, to offer it back on the join screen (said in `language`,
 *  the page's as it was left, not the browser's default). */
export function rememberLeft(seat, language) {
  if (language) sessionStorage.setItem(LEFT_IN, language);
  if (!seat?.key) return;
  keep([{ key: seat.key, name: seat.name ?? "", room: seat.room ?? "" },
    ...leftSeats().filter((kept) => kept.key !== seat.key)]);
}

/** The language the page was left in (once: the join screen after the leave). */
export function leftInLanguage() {
  const language = sessionStorage.getItem(LEFT_IN);
  sessionStorage.removeItem(LEFT_IN);
  return language;
}

/** Forget a left seat (chosen on the join screen, taken back, or refused by the server). */
export function forgetLeft(key) {
  keep(leftSeats().filter((seat) => seat.key !== key));
}

/** Ask whether to leave, in the page's dialog; resolves true only for "Leave". */
export function askToLeave() {
  const dialog = document.getElementById("leave-confirm");
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "leave"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
    document.getElementById("leave-stay").focus(); // the safe answer is the one Enter gives
  });
}

/** Draw the offer of each left seat into `container` (the join screen's): "Rejoin as
 *  <name>" calls `rejoin(seat)`, "Forget" drops it from this browser. */
export function offerRejoin(container, rejoin) {
  const seats = leftSeats();
  container.hidden = !seats.length;
  const list = container.querySelector("ul");
  list.replaceChildren(...seats.map((seat) => {
    const item = document.createElement("li");
    const back = document.createElement("button");
    back.type = "button";
    back.className = "rejoin";
    back.textContent = rejoinWords(seat);
    back.addEventListener("click", () => rejoin(seat));
    const forget = document.createElement("button");
    forget.type = "button";
    forget.className = "forget";
    forget.textContent = t("forget");
    forget.setAttribute("aria-label", t("forget-seat", { name: seat.name, room: seat.room }));
    forget.addEventListener("click", () => { forgetLeft(seat.key); offerRejoin(container, rejoin); });
    item.append(back, forget);
    return item;
  }));
  if (!container.dataset.listening) { // said again in a language picked on the join screen
    container.dataset.listening = "yes";
    document.getElementById("join-language").addEventListener("change", () => offerRejoin(container, rejoin));
  }
}

function rejoinWords(seat) {
  return seat.room ? t("rejoin-as", { name: seat.name, room: seat.room }) : t("rejoin-as-name", { name: seat.name });
}
