// A small markdown renderer for the Keeper's lines: it builds DOM nodes, never HTML
// strings, so nothing a model or a player writes can become markup. Paragraphs, line
// breaks, lists, **bold**, *emphasis*, `code`, and > quotes.

const INLINE = /(\*\*[^*]+\*\*|__[^_]+__|\*[^*\s][^*]*\*|_[^_\s][^_]*_|`[^`]+`)/;

function inline(parent, text) {
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    let node;
    if ((part.startsWith("**") && part.endsWith("**")) || (part.startsWith("__") && part.endsWith("__"))) {
      node = document.createElement("strong");
      inline(node, part.slice(2, -2)); // `code` inside stays code
    } else if (part.length > 2 && ((part.startsWith("*") && part.endsWith("*")) || (part.startsWith("_") && part.endsWith("_")))) {
      node = document.createElement("em");
      inline(node, part.slice(1, -1));
    } else if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
      node = document.createElement("code");
      node.textContent = part.slice(1, -1);
    } else {
      node = document.createTextNode(part);
    }
    parent.append(node);
  }
}

export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  for (const block of String(text).split(/\n{2,}/)) {
    const lines = block.split("\n");
    if (lines.every((line) => /^\s*([-*]|\d+\.)\s+/.test(line))) {
      const list = document.createElement(/^\s*\d+\./.test(lines[0]) ? "ol" : "ul");
      for (const line of lines) {
        const item = document.createElement("li");
        inline(item, line.replace(/^\s*([-*]|\d+\.)\s+/, ""));
        list.append(item);
      }
      fragment.append(list);
      continue;
    }
    const quote = lines.every((line) => line.startsWith(">"));
    const paragraph = document.createElement(quote ? "blockquote" : "p");
    lines.forEach((line, index) => {
      if (index) paragraph.append(document.createElement("br"));
      inline(paragraph, quote ? line.replace(/^>\s?/, "") : line);
    });
    fragment.append(paragraph);
  }
  return fragment;
}
