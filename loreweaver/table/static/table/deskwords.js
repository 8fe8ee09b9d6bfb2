// How the audio desk names a track in the line it sends: by its title (or file name),
// quoted as the server's desk grammar reads words (`keeper/audio_grammar.py`, shell-like),
// so the story shows `.bgm play "Harbour at night" --loop`, not a hash. The hash's start
// stands in only when the title would not name this one track: another in the library
// shares it, or it reads as one of the desk's own option words.
const OPTION_WORDS = new Set(["loop", "once", "noloop", "volume", "vol", "fade", "play", "start", "stop", "pause", "resume"]);

function quoted(text) {
  return `"${text.replace(/["\\]/g, (character) => `\\${character}`)}"`;
}

/** The word for `item` (an `audio_library_item`) among `library`'s items. */
export function trackWord(item, library) {
  const name = (item.title || item.name || "").trim();
  const key = name.toLowerCase();
  const shared = library.some((other) => other.hash !== item.hash
    && [other.title, other.name].some((word) => (word || "").trim().toLowerCase() === key));
  const plain = !name || shared || OPTION_WORDS.has(key) || name.startsWith("-") || name.includes("=")
    || /^[0-9a-f]{8,64}$/i.test(name) || /[\n\r]/.test(name);
  return plain ? item.hash.slice(0, 12) : quoted(name);
}
