// The browser table: a protocol 2.3 client over the WebSocket carrier at `/`.
//
// Join with a key (pasted, or from an invite link's `#key=`), then every frame the
// server sends is drawn: the story (drafts replaced by their final line, an empty final
// removing the draft, lines deduplicated by id after a reconnect's replay), dice cards,
// the sidebar from `state`, `ui` frames, module panels, pictures and sound. A lost
// connection is retried with backoff and joined again with the same key.
import { AudioDesk } from "./audio.js";
import { currentLocale, pick, setLocale, t } from "./i18n.js";
import { KeeperScreens } from "./keeper.js";
import { askToLeave, forgetLeft, leftInLanguage, offerRejoin, rememberLeft } from "./leave.js";
import { MediaChannel } from "./media.js";
import { Blocks, diceCard, element, panelBox, signKeeperAs, skillLabel, storyLine, systemLine } from "./render.js";
import { RollLines } from "./rolls.js";
import { belongings, questItems } from "./sheet.js";
import { FirstScreen } from "./welcome.js";

const PROTOCOL = document.body.dataset.protocol;
// The seat (key and language) survives a reload of this tab: it is kept in the tab's
// sessionStorage, never in the address, a cookie or a log. A seat left with "Leave" is
// kept by the browser until forgotten on the join screen (`leave.js`).
const SEAT = "loreweaver-seat";
const ENDED = "loreweaver-ended"; // why the last seat ended, shown once on the join screen
// The language this browser's member chose for the page (the join form's or the table's
// picker), kept across visits: it wins over the room's language the welcome says.
const CHOSEN_LANGUAGE = "loreweaver-language";
const BUSY_TIMEOUT_MS = 180000;
const UPLOADED_SHOWN_MS = 4000;
const $ = (id) => document.getElementById(id);

const table = {
  socket: null,
  key: "",
  you: null,
  joined: false,
  retries: 0,
  seen: new Set(), // story ids already drawn (a replay after a reconnect repeats them)
  drafts: new Map(), // draft id -> its list item
  variables: new Map(), // the viewer's own state.variables, by id
  manifest: [],
  history: [],
  historyAt: 0,
  busyTimer: null,
  media: null,
  audio: null,
  gallery: new Set(),
};

const blocks = new Blocks({
  send: (text) => sendInput(text),
  picture: (hash) => table.media.url(hash),
  variables: () => table.variables,
  intent: (panel, kind, value) => send({ type: "panel_intent", panel, kind, value }),
});

function send(frame) {
  if (table.socket?.readyState === WebSocket.OPEN) table.socket.send(JSON.stringify(frame));
}

// A player's first screen (welcome.js) and a roll drawn once, as its card (rolls.js).
const firstScreen = new FirstScreen({ send: (text) => sendInput(text), append: (item) => append(item), you: () => table.you, room: () => table.room });
const rollLines = new RollLines();

function sendInput(text) {
  text = text.trim();
  if (!text) return;
  send({ type: "input", text });
}

// --- the story --------------------------------------------------------------------

// A reader at the story's end stays there when something takes room beside it (the
// "now playing" strip above, the busy line below): the last line is never left under
// the input box. Only the reader's own scrolling takes them off the end: a scroll this
// page made itself is dispatched a frame later, when the strip may have grown again, and
// must not read as the reader leaving the end.
const storyEnd = { atEnd: true, placed: -1 };

function scrollToEnd() {
  const story = $("story");
  story.scrollTop = story.scrollHeight;
  storyEnd.placed = story.scrollTop;
  storyEnd.atEnd = true;
}

function append(item) {
  $("story").append(item);
  scrollToEnd();
}

{
  const story = $("story");
  story.addEventListener("scroll", () => {
    // This page's own move ends at the end, whatever took room since it was made.
    storyEnd.atEnd = Math.abs(story.scrollTop - storyEnd.placed) < 1
      || story.scrollTop + story.clientHeight >= story.scrollHeight - 4;
  });
  new ResizeObserver(() => { if (storyEnd.atEnd) scrollToEnd(); }).observe(story);
}

// What the offline Keeper sends to start the sample adventure (the protocol's guided action).
const GUIDED_ACTION = { en: "Start the built-in sample adventure", zh: "开始内置示例冒险" };

// A keeper of an empty room with no model is offered the sample adventure (`demo`): a
// card in the story that says what the offline Keeper is and starts it with one click.
// It stays after a first line (the server still starts it until a module is begun).
function offerSampleAdventure() {
  if ($("sample-card")) return;
  const card = document.createElement("li");
  card.id = "sample-card";
  card.className = "welcome-card";
  const title = document.createElement("h2");
  title.textContent = t("sample-title");
  const about = document.createElement("p");
  about.textContent = t("sample-about");
  const start = document.createElement("button");
  start.type = "button";
  start.textContent = t("sample-start");
  start.addEventListener("click", () => {
    send({ type: "input", text: GUIDED_ACTION[currentLocale()] ?? GUIDED_ACTION.en });
    card.remove();
  });
  const or = document.createElement("p");
  or.className = "hint";
  or.textContent = t("sample-or");
  card.append(title, about, start, or);
  append(card);
}

// However the adventure started (the card, the guided line typed, another keeper), its
// variables are in a keeper's state from then on: the card's Start has nothing to do.
function sampleStarted(frame) {
  if ((frame.variables ?? []).some((variable) => String(variable?.id).startsWith("sample."))) {
    $("sample-card")?.remove();
  }
}

function onNarrative(frame) {
  const draft = table.drafts.get(frame.id);
  if (draft) {
    table.drafts.delete(frame.id);
    if (!frame.text) { draft.remove(); return; } // an empty final discards the draft
    const line = storyLine(frame);
    draft.replaceWith(line);
    table.seen.add(frame.id);
    return;
  }
  if (!frame.text) return;
  if (table.replaying) table.skipEvents = Boolean(frame.id && table.seen.has(frame.id));
  if (frame.id && table.seen.has(frame.id)) return;
  if (frame.id) table.seen.add(frame.id);
  append(storyLine(frame));
}

function onDelta(frame) {
  let draft = table.drafts.get(frame.id);
  if (!draft) {
    draft = storyLine({ ...frame, text: "", format: "markdown" });
    draft.classList.add("draft");
    draft.dataset.raw = "";
    table.drafts.set(frame.id, draft);
    append(draft);
  }
  draft.dataset.raw += frame.text;
  const fresh = storyLine({ ...frame, text: draft.dataset.raw, format: "markdown" });
  draft.querySelector(".text").replaceWith(fresh.querySelector(".text"));
  scrollToEnd();
}

function onDice(frame) {
  if (table.replaying && table.skipEvents) return; // replayed after a line already drawn
  const card = diceCard(frame);
  append(card);
  rollLines.drawn(frame, card);
}

function onTurnStatus(frame) {
  const busy = $("busy");
  clearTimeout(table.busyTimer);
  if (frame.status === "busy") {
    busy.hidden = false;
    busy.textContent = frame.activity
      ? t("busy-activity", { actor: frame.actor, activity: t(frame.activity) })
      : t("busy", { actor: frame.actor });
    // A turn whose `idle` never comes must not leave the page busy forever.
    table.busyTimer = setTimeout(() => { busy.textContent = t("busy-timeout"); }, BUSY_TIMEOUT_MS);
  } else {
    busy.hidden = true;
  }
}

function onUi(frame) {
  const rendered = blocks.render(frame.blocks);
  if (frame.panel === "sidebar") {
    const region = frame.id && $("sidebar-ui").querySelector(`[data-region="${CSS.escape(frame.id)}"]`);
    rendered.dataset.region = frame.id ?? "";
    if (region) region.replaceWith(rendered);
    else $("sidebar-ui").append(rendered);
    return;
  }
  const item = document.createElement("li");
  item.className = "ui-line";
  item.dataset.region = frame.id ?? "";
  item.append(rendered);
  const previous = frame.replace && frame.id && $("story").querySelector(`li.ui-line[data-region="${CSS.escape(frame.id)}"]`);
  if (previous) previous.replaceWith(item);
  else append(item);
}

// --- the sidebar ------------------------------------------------------------------

function meterRow(label, value, max) {
  const row = document.createElement("div");
  row.className = "resource";
  const name = document.createElement("span");
  name.textContent = label;
  const amount = document.createElement("span");
  amount.textContent = max !== undefined ? `${value}/${max}` : String(value);
  row.append(name);
  if (max !== undefined) {
    const meter = document.createElement("meter");
    meter.min = 0; meter.max = max; meter.value = value;
    meter.setAttribute("aria-label", `${label} ${value}/${max}`);
    row.append(meter);
  } else {
    row.append(document.createElement("span"));
  }
  row.append(amount);
  return row;
}

// Without a portrait a name shows a letter on a colour of its own, so two people whose
// letters match (Keeper and Kim) still look apart: the first letter of a name, the last
// character of a Chinese one (its given name: 小明 and 小红 read 明 and 红).
function initialOf(name) {
  const chars = [...(name || "").trim()];
  if (!chars.length) return "?";
  return (/\p{Script=Han}/u.test(chars[0]) ? chars[chars.length - 1] : chars[0]).toUpperCase();
}

function hueOf(name) {
  let hue = 0;
  for (const char of name || "") hue = (hue * 31 + char.codePointAt(0)) % 360;
  return hue;
}

function avatarImage(avatar, name) {
  if (!avatar?.hash) {
    const initial = document.createElement("span");
    initial.className = "avatar initial";
    initial.setAttribute("aria-hidden", "true");
    initial.textContent = initialOf(name);
    initial.style.background = `hsl(${hueOf(name)} 45% 36%)`;
    return initial;
  }
  const image = document.createElement("img");
  image.className = "avatar";
  image.alt = name;
  table.media.url(avatar.hash).then((url) => { image.src = url; }).catch(() => {});
  return image;
}

function attributesOf(character) {
  const attributes = character.attributes;
  return attributes && typeof attributes === "object" ? attributes : {};
}

function onState(frame) {
  if (frame.systems) table.systems = frame.systems; // the rules screen says how to make a character
  if (frame.reset) { $("story").replaceChildren(); table.seen.clear(); }
  const body = $("character-body");
  body.replaceChildren();
  const character = frame.character;
  if (character) {
    const title = document.createElement("p");
    // The system's display name in the page's language (additive `system_name`; an id
    // from a server without it).
    title.append(avatarImage(character.avatar, character.name), ` ${character.name} (${character.system_name ?? character.system})`);
    body.append(title);
    for (const resource of character.resources ?? []) body.append(meterRow(resource.label, resource.value, resource.max));
    const attributes = document.createElement("div");
    attributes.className = "attributes";
    // The keys stay the ids `.st` accepts; what is shown is the pack's name for each
    // (additive `attribute_names`, in the page's language), else the skill labels the
    // page carries, else the id.
    const names = character.attribute_names ?? {};
    for (const [key, value] of Object.entries(attributesOf(character))) {
      const item = document.createElement("span");
      item.textContent = `${Object.hasOwn(names, key) ? names[key] : skillLabel(key)} ${value}`;
      item.title = key;
      attributes.append(item);
    }
    body.append(attributes);
    if (character.status_effects?.length) {
      const effects = document.createElement("p");
      effects.textContent = character.status_effects.join(", ");
      body.append(effects);
    }
    body.append(...belongings(character));
  } else {
    const none = document.createElement("p");
    // A keeper runs the table: told what a keeper does, never nudged to make a character.
    none.textContent = t(table.you?.role === "keeper" ? "keeper-no-character" : "no-character");
    body.append(none);
  }

  const party = $("party");
  party.replaceChildren();
  for (const member of frame.party ?? []) {
    const item = document.createElement("li");
    item.className = member.online ? "online" : "offline";
    item.append(avatarImage(member.avatar, member.name));
    const name = document.createElement("bdi");
    name.textContent = member.name;
    item.append(name, (member.active ? ` (${t("you")})` : "") + (member.ai ? " ⚙" : ""));
    party.append(item);
  }

  const quests = frame.quests ?? [];
  $("quests-section").hidden = quests.length === 0;
  $("quests").replaceChildren(...questItems(quests));

  const initiative = frame.initiative ?? [];
  $("initiative-section").hidden = initiative.length === 0;
  $("initiative").replaceChildren(
    ...initiative.map((entry) => {
      const item = document.createElement("li");
      item.textContent = `${entry.name} ${entry.value}`;
      if (entry.current) { item.className = "current"; item.setAttribute("aria-current", "true"); }
      return item;
    }),
  );

  const where = [frame.scene?.name, frame.scene?.focus, frame.clock?.time].filter(Boolean);
  $("scene").textContent = where.join(" · ");

  table.variables = new Map((frame.variables ?? []).map((entry) => [entry.id, entry]));
  $("variables-section").hidden = table.variables.size === 0;
  $("variables").replaceChildren(
    ...[...table.variables.values()].map((entry) => {
      const item = document.createElement("li");
      if (entry.kind === "number" && entry.min !== undefined && entry.max !== undefined) {
        item.append(meterRow(entry.label, entry.value, entry.max));
      } else {
        const value = typeof entry.value === "boolean" ? t(entry.value ? "yes" : "no") : entry.value;
        item.textContent = `${entry.label}: ${value}`;
      }
      if (entry.hidden || entry.keeper_only) item.title = "keepers only";
      return item;
    }),
  );

  const pregens = frame.pregens ?? [];
  $("pregens-section").hidden = pregens.length === 0;
  $("pregens").replaceChildren(
    ...pregens.map((pregen) => {
      const item = document.createElement("li");
      item.textContent = `${pregen.name} `;
      if (pregen.claimed_by) {
        item.append(`(${t("claimed-by")})`);
      } else {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = t("claim");
        button.addEventListener("click", () => sendInput(`.pc claim ${pregen.name}`));
        item.append(button);
      }
      return item;
    }),
  );

  const usage = frame.usage;
  $("usage-section").hidden = !(usage && table.you?.role === "keeper");
  if (usage) {
    $("usage").textContent = t("context", {
      used: usage.context_tokens, window: usage.context_window, input: usage.input_tokens, output: usage.output_tokens,
    });
  }
  renderPanels(); // their $var and visible_when read the fresh variables
  firstScreen.state(frame);
}

function renderPanels() {
  $("panels").replaceChildren(...table.manifest.map((panel) => panelBox(panel, blocks, { open: openWebPanel })));
}

// A tier-2 panel: its page in a sandboxed frame (scripts, nothing else). The frame is
// the site's panel page, which shows what it is posted under a policy of its own: a
// page written into the table's own frame would inherit the table's policy, which runs
// no inline script.
async function openWebPanel(panel, box) {
  const response = await fetch(await table.media.url(panel.entry.hash));
  const html = await response.text();
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = pick(panel.title);
  frame.addEventListener("load", () => frame.contentWindow.postMessage({ type: "panel_page", html }, "*"), { once: true });
  frame.src = "/panel-frame";
  box.replaceChildren(box.querySelector("h3"), frame);
}

// --- who is here -----------------------------------------------------------------------

// A line of the page's own in the story, as plain text (a name is never markup).
function notice(text) {
  const item = document.createElement("li");
  item.className = "system presence";
  item.textContent = text;
  return item;
}

// The members online now, and a line in the story when someone comes or goes (not for
// the roll call a join brings, nor for oneself).
function onPresence(frame) {
  const players = (frame.players ?? []).filter((p) => p.online !== false);
  const here = new Map(players.map((p) => [p.id, p.name]));
  if (table.present) {
    for (const [id, name] of here) if (!table.present.has(id) && id !== table.you?.id) append(notice(t("joined", { name })));
    for (const [id, name] of table.present) if (!here.has(id) && id !== table.you?.id) append(notice(t("left", { name })));
  }
  table.present = here;
  $("online").replaceChildren(...players.map(onlineEntry));
}

// One member at the table: name, then role, character and how they are connected (the
// server's additive presence fields; an older server sends names only).
function onlineEntry(player) {
  const nameLine = element("span");
  // A name in any script reads on its own.
  nameLine.append(element("bdi", "", player.name), player.id === table.you?.id ? ` (${t("you")})` : "");
  const member = element("span", "member");
  member.append(nameLine);
  const parts = [];
  if (player.role) parts.push(t(player.role === "keeper" ? "role-keeper" : "role-player"));
  if (player.character) parts.push(element("bdi", "", player.character));
  if (player.carriers?.length) parts.push(player.carriers.map((c) => CARRIER_NAMES[c] ?? c).join(", "));
  if (parts.length) {
    const details = element("span", "who");
    parts.forEach((part, i) => details.append(i ? " · " : "", part));
    member.append(details);
  }
  const item = element("li", "online");
  item.append(avatarImage(null, player.name), member);
  return item;
}

// How a member is connected, by the label the server gives each carrier.
const CARRIER_NAMES = { ws: "WebSocket", iroh: "Iroh", sidequest: "SideQuest" };

// --- media --------------------------------------------------------------------------

function onMedia(frame) {
  if (!frame.mime?.startsWith("image/") || table.gallery.has(frame.hash)) return;
  table.gallery.add(frame.hash);
  const item = document.createElement("li");
  const image = document.createElement("img");
  image.alt = frame.name;
  // In the story too: a thumbnail that opens the picture full size.
  const line = document.createElement("li");
  line.className = "picture";
  const caption = document.createElement("bdi");
  caption.textContent = frame.name;
  const open = document.createElement("a");
  open.target = "_blank";
  open.rel = "noopener";
  const thumbnail = document.createElement("img");
  thumbnail.alt = frame.name;
  open.append(thumbnail);
  line.append(open, caption);
  append(line);
  table.media.url(frame.hash).then((url) => { image.src = url; thumbnail.src = url; open.href = url; }).catch(() => {});
  const portrait = document.createElement("button");
  portrait.type = "button";
  portrait.textContent = t("portrait");
  portrait.addEventListener("click", () => send({ type: "avatar_set", hash: frame.hash }));
  item.append(image, portrait);
  $("gallery").append(item);
}

async function upload(file) {
  const progress = $("upload-progress");
  progress.hidden = false;
  try {
    await table.media.upload(file, (fraction) => {
      progress.textContent = t("uploading", { name: file.name, percent: Math.round(fraction * 100) });
    });
    progress.textContent = t("uploaded", { name: file.name });
    setTimeout(() => { progress.hidden = true; }, UPLOADED_SHOWN_MS); // the picture itself stays in the story
  } catch (refused) {
    progress.textContent = t("upload-refused", { name: file.name, message: refused.message });
  }
}

// --- the connection ---------------------------------------------------------------

function setConnection(word) {
  $("connection").dataset.i18n = word; // said again in a language picked later
  $("connection").textContent = t(word);
}

// The page's words in `language`, live. The story keeps the room's language (the server
// writes it); the sidebar's labels are the server's too, so it is told the page's language
// (`viewer_locale`, an addition only this page sends) and answers with a fresh state.
function showIn(language) {
  setLocale(language);
  $("table-language").value = currentLocale();
  $("join-language").value = currentLocale();
  if (table.joined && currentLocale() !== table.viewerLocale) {
    table.viewerLocale = currentLocale();
    send({ type: "viewer_locale", locale: currentLocale() });
  }
  if (table.key) sessionStorage.setItem(SEAT, JSON.stringify({ key: table.key, language: currentLocale() }));
}

function choose(language) {
  localStorage.setItem(CHOSEN_LANGUAGE, language);
  showIn(language);
}

function onFrame(frame) {
  if (rollLines.absorbs(frame)) { // the text line of a roll already drawn as its card
    if (frame.id) table.seen.add(frame.id); // a replay never draws it either
    return;
  }
  // A model connected since the join: the sample adventure is no longer on offer.
  if (frame.type === "admin_config" && frame.using_demo === false) $("sample-card")?.remove();
  if (frame.type === "admin_config") signKeeperAs(frame.using_demo ? "keeper-offline" : "keeper");
  if (table.keeper.frame(frame)) return;
  switch (frame.type) {
    case "welcome": {
      const [major] = String(frame.protocol).split(".");
      if (major !== PROTOCOL.split(".")[0]) {
        showJoinError(t("protocol-mismatch", { client: PROTOCOL, server: frame.protocol }));
        table.key = "";
        table.socket.close();
        return;
      }
      table.you = frame.you;
      table.joined = true;
      signKeeperAs((frame.features ?? []).includes("offline_keeper") ? "keeper-offline" : "keeper");
      // The page starts in the room's language (the welcome's), unless this browser's
      // member chose one; the server reads the sidebar in the language the join said.
      table.viewerLocale = table.joinLocale;
      showIn(localStorage.getItem(CHOSEN_LANGUAGE) || frame.locale || currentLocale());
      table.present = null; // the roll call that follows the join is not news
      // A reconnect's replay repeats what is drawn already: lines are known by id, and
      // the dice replayed after a known line are skipped with it, until the first state.
      table.replaying = $("story").children.length > 0;
      table.skipEvents = table.replaying;
      table.retries = 0;
      $("room-name").textContent = $("room-name").title = `${frame.room} · ${frame.you.name}`;
      table.room = frame.room;
      $("open-keeper").hidden = frame.you.role !== "keeper";
      $("join-screen").hidden = true;
      $("table-screen").hidden = false;
      sessionStorage.setItem(SEAT, JSON.stringify({ key: table.key, language: currentLocale() }));
      forgetLeft(table.key); // back at the table: no longer a seat left
      if (frame.you.role === "keeper" && (frame.features ?? []).includes("demo")) offerSampleAdventure();
      setConnection("connected");
      send({ type: "input", text: ".help" }); // its answer fills the command hints
      table.awaitingHelp = true;
      $("say").focus();
      break;
    }
    case "error":
      if (String(frame.code).startsWith("media_") && frame.code !== "media_not_found" && table.media.answered(frame)) break;
      if (!table.joined && frame.code === "bad_key") forgetLeft(table.key); // no rejoin with a dead key
      if (!table.joined) { showJoinError(frame.message); table.key = ""; sessionStorage.removeItem(SEAT); break; }
      if (frame.code === "bad_key") { ended(frame.message); break; } // revoked: the server closes
      if (frame.code === "rate_limited") { onTooFast(frame); break; }
      append(systemLine({ text: frame.message, level: "warn" }));
      break;
    case "narrative":
      if (table.awaitingHelp && frame.speaker === "system" && frame.text.includes(".r")) {
        table.awaitingHelp = false;
        fillHints(frame.text);
        break;
      }
      if (table.awaitingHelp && frame.speaker === "player" && frame.text === ".help") break;
      onNarrative(frame);
      break;
    case "narrative_delta": onDelta(frame); break;
    case "system": append(systemLine(frame)); break;
    case "dice": onDice(frame); break;
    case "turn_status": onTurnStatus(frame); break;
    case "state": table.replaying = false; sampleStarted(frame); onState(frame); break;
    case "ui_manifest": table.manifest = frame.panels ?? []; renderPanels(); break;
    case "ui": onUi(frame); break;
    case "panel_event":
      for (const frameElement of document.querySelectorAll(`[data-panel="${CSS.escape(frame.panel)}"] iframe`)) {
        frameElement.contentWindow?.postMessage({ type: "panel_event", payload: frame.payload }, "*");
      }
      break;
    case "media": onMedia(frame); break;
    case "media_accept": table.media.answered(frame); break;
    case "audio_control": table.audio.control(frame); break;
    case "audio_state": table.audio.state(frame); break;
    case "audio_library_item": table.audio.titled(frame); break;
    case "presence": onPresence(frame); break;
    default: break; // pong, admin frames: nothing to draw here
  }
}

// Lines refused for coming too fast: one notice for a burst of them that counts them
// (not a line each; it moves to the end of the story as more come), and the last
// refused line back in the box, so nothing typed is lost.
const FLOOD_MS = 10000;

function onTooFast(frame) {
  const now = Date.now();
  const flood = table.flood && now - table.flood.at < FLOOD_MS ? table.flood : { count: 0 };
  flood.count += 1;
  flood.at = now;
  const line = systemLine({ text: flood.count > 1 ? t("too-fast-again", { n: flood.count }) : frame.message, level: "warn" });
  line.dataset.code = "rate_limited";
  flood.line?.remove();
  flood.line = line;
  table.flood = flood;
  append(line);
  const input = $("say");
  if (!input.value && table.lastSent) input.value = table.lastSent;
}

function fillHints(helpText) {
  const words = new Set(helpText.match(/(^|\s)\.[a-z]+/gim)?.map((word) => word.trim()) ?? []);
  $("command-hints").replaceChildren(...[...words].sort().map((word) => Object.assign(document.createElement("option"), { value: word })));
}

function connect() {
  setConnection(table.retries ? "reconnecting" : "connecting");
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/`);
  socket.binaryType = "arraybuffer";
  table.socket = socket;
  socket.addEventListener("open", () => {
    table.joinLocale = currentLocale();
    const join = { type: "join", key: table.key, locale: table.joinLocale, client: { name: "loreweaver-browser", version: document.body.dataset.serverVersion } };
    socket.send(JSON.stringify(join));
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data === "string") onFrame(JSON.parse(event.data));
    else table.media.received(event.data);
  });
  socket.addEventListener("close", () => {
    if (!table.key) return; // refused or left: no retry
    table.joined = false;
    table.retries += 1;
    setConnection("reconnecting");
    const delay = Math.min(30000, 500 * 2 ** Math.min(table.retries, 6)) * (0.75 + Math.random() / 2);
    setTimeout(connect, delay);
  });
}

// Near the limit the box says how much is left (the server takes `maxlength` characters).
function showCount() {
  const input = $("say");
  const count = $("say-count");
  const max = input.maxLength;
  count.hidden = input.value.length < max * 0.8;
  count.textContent = t("chars-left", { used: input.value.length, max });
}

// Leave the table, once asked: the tab forgets the seat (the browser keeps it, to offer
// it back), and the page starts afresh at the join screen (nothing of this room's story,
// party or pictures stays drawn).
async function leave() {
  if (!(await askToLeave())) return;
  rememberLeft({ key: table.key, name: table.you?.name, room: table.room }, currentLocale());
  sessionStorage.removeItem(SEAT);
  table.key = ""; // no retry
  table.socket?.close();
  location.replace(location.pathname);
}

// The seat was ended by the server (its key revoked or moved): the page starts afresh at
// the join screen, saying why, instead of retrying with a key that no longer works.
function ended(message) {
  sessionStorage.removeItem(SEAT);
  sessionStorage.setItem(ENDED, message);
  table.key = ""; // no retry
  table.socket?.close();
  location.replace(location.pathname);
}

function showJoinError(message) {
  $("join-screen").hidden = false;
  $("table-screen").hidden = true;
  $("join-error").textContent = message;
}

// --- the page -----------------------------------------------------------------------

function start() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const language = fragment.get("lang") || leftInLanguage() || localStorage.getItem(CHOSEN_LANGUAGE) || (navigator.language?.startsWith("zh") ? "zh" : "en");
  $("join-language").value = language === "zh" ? "zh" : "en";
  setLocale($("join-language").value);
  const kept = JSON.parse(sessionStorage.getItem(SEAT) || "null");
  $("join-error").textContent = sessionStorage.getItem(ENDED) ?? "";
  sessionStorage.removeItem(ENDED);
  if (fragment.get("key")) {
    $("join-key").value = fragment.get("key");
    history.replaceState(null, "", location.pathname); // the key leaves the address bar
  } else if (kept?.key) { // a reload: the same seat
    $("join-key").value = kept.key;
    if (kept.language) { $("join-language").value = kept.language; setLocale(kept.language); }
  }
  table.media = new MediaChannel(() => table.socket, () => append(systemLine({ text: t("bad-hash"), level: "warn" })));
  table.audio = new AudioDesk($("audio-layers"), $("audio-unlock"), table.media);
  table.keeper = new KeeperScreens({ send, say: sendInput, room: () => table.room, key: () => table.key, systems: () => table.systems ?? [] });
  $("open-keeper").addEventListener("click", () => table.keeper.open());

  $("join-language").addEventListener("change", (event) => choose(event.target.value));
  $("table-language").addEventListener("change", (event) => choose(event.target.value));
  offerRejoin($("rejoin"), (seat) => {
    $("join-key").value = seat.key;
    $("join-form").requestSubmit();
  });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    table.key = $("join-key").value.trim();
    if (!table.key) { $("join-error").textContent = t("key-missing"); return; }
    $("join-error").textContent = "";
    connect();
  });
  $("say-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("say");
    if (!input.value.trim()) return;
    table.history.push(input.value);
    table.historyAt = table.history.length;
    sendInput(input.value);
    table.lastSent = input.value;
    input.value = "";
    showCount();
  });
  $("say").addEventListener("input", showCount);
  $("leave").addEventListener("click", leave);
  $("say").addEventListener("keydown", (event) => {
    if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
    if (!table.history.length) return;
    event.preventDefault();
    table.historyAt = Math.max(0, Math.min(table.history.length, table.historyAt + (event.key === "ArrowUp" ? -1 : 1)));
    event.target.value = table.history[table.historyAt] ?? "";
  });
  $("upload").addEventListener("change", (event) => {
    for (const file of event.target.files) upload(file);
    event.target.value = "";
  });
  const column = document.querySelector(".story-column");
  column.addEventListener("dragover", (event) => event.preventDefault());
  column.addEventListener("drop", (event) => {
    event.preventDefault();
    for (const file of event.dataTransfer.files) upload(file);
  });
  $("toggle-side").addEventListener("click", (event) => {
    const open = $("side").classList.toggle("open");
    event.target.setAttribute("aria-expanded", String(open));
    event.target.dataset.i18n = open ? "story" : "sheet"; // the way back, once the drawer is open
    event.target.textContent = t(event.target.dataset.i18n);
  });
  if ($("join-key").value) $("join-form").requestSubmit();
}

start();
