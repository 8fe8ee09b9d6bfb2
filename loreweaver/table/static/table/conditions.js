// `visible_when`: the condition language of panel blocks, read exactly as the server's
// reference (packs/conditions.py) reads it; the shared conformance table
// (packs/tests/fixtures/visible_when_vectors.json) keeps the two in step.
//
// A condition is a comparison, or several joined by `&&`/`and` and `||`/`or`, each
// possibly negated by `!`/`not` (which takes the whole comparison after it) and grouped
// with parentheses. Each side of a comparison (`=== !== == != >= <= > <`, one per pair,
// never chained) is a number (`12`, `1.5`), a quoted string (a backslash keeps the next
// character), `true false null undefined none` in any case, or a variable id written as
// a bare dotted path of letters of any script, digits and `_` (an absent one is null).
// Nothing else: no arithmetic (not even a leading minus), no calls, no brackets.
//
// `==` also holds between a value and the same number written as text or as a boolean
// (`"2" == 2`, `true == 1`); `===` needs the same type too (an integer is never a
// decimal). Ordering compares numbers read that way, or two non-numeric strings by code
// point; anything else (null, a word against a number) is an error. `&&` and `||`
// short-circuit, and null, false, 0 and "" are false. A block whose condition is false
// or in error stays hidden.

const MAX_LENGTH = 500;
const MAX_TOKENS = 200;

const KEYWORDS = { true: true, false: false, null: null, undefined: null, none: null };
const WORD_OPERATORS = { and: "&&", or: "||", not: "!" };
const COMPARISONS = ["===", "!==", "==", "!=", ">=", "<=", ">", "<"];
const OPERATORS = [...COMPARISONS, "&&", "||", "!"];
// Characters only arithmetic, calls or brackets would need: outside the subset.
const OUTSIDE = { "+": "arithmetic", "-": "arithmetic", "*": "arithmetic", "/": "arithmetic" };
Object.assign(OUTSIDE, { "%": "arithmetic", "[": "brackets", "]": "brackets", ",": "function calls" });

// Python's whitespace (str.isspace), letters (isalpha), decimal digits and word characters
// (isalnum), which differ a little from JavaScript's `\s` and `\w`.
const SPACES = "[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const SPACE = new RegExp(`^${SPACES}$`);
const EDGE_SPACES = new RegExp(`^${SPACES}+|${SPACES}+$`, "g");
const DIGIT = /^[0-9]$/; // a number written in the condition: ASCII digits only
const ANY_DIGIT = /^\p{Nd}$/u; // a digit of any script, in a value read as a number
const START = /^[\p{L}_]$/u;
const WORD = /^[\p{L}\p{N}_]$/u;
// A text Python's int() or float() reads as a number (after its digits become ASCII).
const PART = "\\d+(?:_\\d+)*";
const NUMERAL = new RegExp(
  `^[+-]?(?:(?:${PART}(?:\\.(?:${PART})?)?|\\.${PART})(?:e[+-]?${PART})?|inf(?:inity)?|nan)$`,
  "i",
);

class ConditionError extends Error {}

function fail(reason) {
  throw new ConditionError(reason);
}

// A decimal literal such as `2.0`, kept apart from the integer 2 for `===`.
class Decimal {
  constructor(number) {
    this.number = number;
  }
}

const strip = (text) => text.replace(EDGE_SPACES, "");

// Any script's decimal digits as ASCII ones: Unicode encodes each script's 0-9 in a row.
function asciiDigits(text) {
  return text.replace(/\p{Nd}/gu, (digit) => {
    let zero = digit.codePointAt(0);
    while (ANY_DIGIT.test(String.fromCodePoint(zero - 1))) zero -= 1;
    return String((digit.codePointAt(0) - zero) % 10);
  });
}

function show(value) {
  return value instanceof Decimal ? String(value.number) : (JSON.stringify(value) ?? String(value));
}

// --- reading ------------------------------------------------------------------------

function tokens(condition) {
  const chars = Array.from(condition); // code points, as the reference counts them
  if (chars.length > MAX_LENGTH) fail(`longer than ${MAX_LENGTH} characters`);
  const run = (at, pattern) => {
    while (at < chars.length && pattern.test(chars[at])) at += 1;
    return at;
  };
  const found = [];
  let at = 0;
  while (at < chars.length) {
    const char = chars[at];
    if (SPACE.test(char)) {
      at += 1;
      continue;
    }
    if (Object.hasOwn(OUTSIDE, char)) fail(`${OUTSIDE[char]} ('${char}') is outside the portable subset`);
    if (char === "(" || char === ")") {
      found.push({ kind: char, text: char });
      at += 1;
    } else if (char === "'" || char === '"') {
      const text = [];
      for (at += 1; chars[at] !== char; at += 1) {
        if (at >= chars.length) fail("a string is not closed");
        if (chars[at] === "\\" && at + 1 < chars.length) at += 1;
        text.push(chars[at]);
      }
      at += 1;
      found.push({ kind: "value", text: text.join(""), value: text.join("") });
    } else if (DIGIT.test(char)) {
      let end = run(at, DIGIT);
      const decimal = chars[end] === "." && DIGIT.test(chars[end + 1] ?? "");
      if (decimal) end = run(end + 1, DIGIT);
      const text = chars.slice(at, end).join("");
      const number = Number(text);
      found.push({ kind: "value", text, value: decimal ? new Decimal(number) : number });
      at = end;
    } else if (START.test(char)) {
      let end = run(at, WORD);
      while (chars[end] === "." && WORD.test(chars[end + 1] ?? "")) end = run(end + 1, WORD);
      const text = chars.slice(at, end).join("");
      const lowered = text.toLowerCase();
      if (Object.hasOwn(KEYWORDS, lowered)) {
        found.push({ kind: "value", text, value: KEYWORDS[lowered] });
      } else if (Object.hasOwn(WORD_OPERATORS, lowered)) {
        found.push({ kind: "op", text: WORD_OPERATORS[lowered] });
      } else if (chars[run(end, SPACE)] === "(") {
        fail(`function calls (${text}(...)) are outside the portable subset`);
      } else {
        found.push({ kind: "path", text });
      }
      at = end;
    } else {
      const ahead = chars.slice(at, at + 3).join("");
      const operator = OPERATORS.find((candidate) => ahead.startsWith(candidate));
      if (operator === undefined) fail(`unexpected '${char}'`);
      found.push({ kind: "op", text: operator });
      at += operator.length;
    }
    if (found.length > MAX_TOKENS) fail(`more than ${MAX_TOKENS} tokens`);
  }
  return found;
}

// The tree: ["value", v] | ["path", id] | ["not", node] | ["and" | "or", left, right]
// | ["compare", operator, left, right].
function parse(condition) {
  if (typeof condition !== "string" || !strip(condition)) fail("the condition is empty");
  const list = tokens(condition);
  let at = 0;
  const isOperator = (token, operators) => token?.kind === "op" && operators.includes(token.text);
  const take = () => (at < list.length ? list[at++] : fail("the condition ends too early"));

  function either() {
    let node = both();
    while (isOperator(list[at], ["||"])) {
      take();
      node = ["or", node, both()];
    }
    return node;
  }
  function both() {
    let node = negation();
    while (isOperator(list[at], ["&&"])) {
      take();
      node = ["and", node, negation()];
    }
    return node;
  }
  function negation() {
    if (!isOperator(list[at], ["!"])) return comparison();
    take();
    return ["not", negation()];
  }
  function comparison() {
    const left = operand();
    if (!isOperator(list[at], COMPARISONS)) return left;
    const node = ["compare", take().text, left, operand()];
    if (isOperator(list[at], COMPARISONS)) fail("comparisons do not chain; join them with &&");
    return node;
  }
  function operand() {
    const token = take();
    if (token.kind === "value") return ["value", token.value];
    if (token.kind === "path") return ["path", token.text];
    if (token.kind === "(") {
      const node = either();
      if (list[at]?.kind !== ")") fail("a parenthesis is not closed");
      take();
      return node;
    }
    return fail(`unexpected '${token.text}'`);
  }

  if (list.length === 0) fail("the condition is empty");
  const tree = either();
  if (at < list.length) fail(`unexpected '${list[at].text}'`);
  return tree;
}

// --- values -------------------------------------------------------------------------

// The number a value reads as: booleans as 0/1, numbers, and numeric text; else null.
function numberOf(value) {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") return value;
  if (value instanceof Decimal) return value.number;
  if (typeof value !== "string") return null;
  const text = asciiDigits(strip(value));
  if (!NUMERAL.test(text)) return null;
  return Number(text.replaceAll("_", "").replace(/inf(inity)?$/i, "Infinity"));
}

function typeOf(value) {
  if (value instanceof Decimal) return "decimal";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "decimal";
  return value === null ? "null" : typeof value;
}

// Python's `==`: booleans and numbers compare as numbers, anything else as itself.
function same(left, right) {
  const plain = (value) => (typeof value === "string" ? null : numberOf(value));
  const a = plain(left);
  const b = plain(right);
  return a !== null && b !== null ? a === b : left === right;
}

function codePointOrder(left, right) {
  const a = Array.from(left, (char) => char.codePointAt(0));
  const b = Array.from(right, (char) => char.codePointAt(0));
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function compare(operator, left, right) {
  const loose = () => same(left, right) || (numberOf(left) !== null && numberOf(left) === numberOf(right));
  const strict = () => typeOf(left) === typeOf(right) && same(left, right);
  if (operator === "==") return loose();
  if (operator === "!=") return !loose();
  if (operator === "===") return strict();
  if (operator === "!==") return !strict();
  let a = numberOf(left);
  let b = numberOf(right);
  if (a === null || b === null) {
    if (typeof left !== "string" || typeof right !== "string" || a !== null || b !== null) {
      fail(`${show(left)} and ${show(right)} cannot be ordered`);
    }
    [a, b] = [codePointOrder(left, right), 0];
  }
  return { ">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b }[operator];
}

function truthy(value) {
  if (value instanceof Decimal) return value.number !== 0;
  if (typeof value === "number") return value !== 0; // NaN is true, as in Python
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

function lookup(variables, id) {
  if (variables instanceof Map) return variables.get(id) ?? null;
  return variables !== null && typeof variables === "object" && Object.hasOwn(variables, id)
    ? (variables[id] ?? null)
    : null;
}

function valueOf(node, variables) {
  const [kind, first, second, third] = node;
  if (kind === "value") return first;
  if (kind === "path") return lookup(variables, first);
  if (kind === "not") return !truthy(valueOf(first, variables));
  if (kind === "and") {
    const left = valueOf(first, variables);
    return truthy(left) ? valueOf(second, variables) : left;
  }
  if (kind === "or") {
    const left = valueOf(first, variables);
    return truthy(left) ? left : valueOf(second, variables);
  }
  return compare(first, valueOf(second, variables), valueOf(third, variables));
}

function paths(node) {
  if (node[0] === "path") return [node[1]];
  return node.slice(1).filter(Array.isArray).flatMap(paths);
}

// --- the API ------------------------------------------------------------------------

/** Whether `condition` holds for `variables` (id -> value, a plain object or a Map);
 *  throws an Error saying why when it cannot be read or evaluated. */
export function evaluateOrThrow(condition, variables) {
  return truthy(valueOf(parse(condition), variables));
}

/** Whether a block gated by `condition` shows: true only when the condition is
 *  well-formed and true; false when it is false, unreadable or in error (fail-closed). */
export function evaluate(condition, variables) {
  try {
    return evaluateOrThrow(condition, variables);
  } catch {
    return false;
  }
}

/** Throws an Error with the reason when a pack could not ship `condition`: not text,
 *  outside the portable subset, or failing even with every variable set to "1". */
export function check(condition) {
  if (typeof condition !== "string") fail("a condition must be text");
  const tree = parse(condition);
  valueOf(tree, new Map(paths(tree).map((id) => [id, "1"])));
}
