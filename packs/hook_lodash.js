// The part of lodash (`_`) that event hooks use most, written for this server
// (packs/hooks.py): loaded into a hook's interpreter only when its script names `_`.
(() => {
  const path = (p) => Array.isArray(p) ? p.map(String) : String(p).replace(/\[(\w+)\]/g, ".$1").split(".").filter((k) => k !== "");
  const get = (o, p, d) => { let v = o; for (const k of path(p)) { if (v === null || v === undefined) return d; v = v[k]; } return v === undefined ? d : v; };
  const iter = (f) => typeof f === "function" ? f : typeof f === "string" ? (o) => get(o, f) : (o) => o;
  const list = (c) => Array.isArray(c) ? c : c && typeof c === "object" ? Object.values(c) : [];
  const num = (v) => Number(v);
  const clone = (v) => v === undefined ? v : JSON.parse(JSON.stringify(v));
  globalThis._ = {
    get, has: (o, p) => { let v = o; for (const k of path(p)) { if (v === null || typeof v !== "object" || !(k in v)) return false; v = v[k]; } return true; },
    set: (o, p, v) => { const ks = path(p); let n = o; ks.slice(0, -1).forEach((k) => { if (n[k] === null || typeof n[k] !== "object") n[k] = {}; n = n[k]; }); n[ks[ks.length - 1]] = v; return o; },
    clamp: (v, lo, hi) => hi === undefined ? Math.min(num(v), num(lo)) : Math.min(Math.max(num(v), num(lo)), num(hi)),
    inRange: (v, a, b) => { if (b === undefined) { b = a; a = 0; } return num(v) >= Math.min(a, b) && num(v) < Math.max(a, b); },
    random: (a = 0, b = 1, f = false) => { if (b === undefined) { b = a; a = 0; } const r = Math.random() * (b - a) + a; return f || !Number.isInteger(a) || !Number.isInteger(b) ? r : Math.floor(Math.random() * (b - a + 1)) + a; },
    sample: (c) => { const l = list(c); return l[Math.floor(Math.random() * l.length)]; },
    shuffle: (c) => { const l = [...list(c)]; for (let i = l.length - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [l[i], l[j]] = [l[j], l[i]]; } return l; },
    sum: (c) => list(c).reduce((a, v) => a + num(v), 0),
    sumBy: (c, f) => list(c).reduce((a, v) => a + num(iter(f)(v)), 0),
    max: (c) => { const l = list(c); return l.length ? l.reduce((a, v) => (v > a ? v : a)) : undefined; },
    min: (c) => { const l = list(c); return l.length ? l.reduce((a, v) => (v < a ? v : a)) : undefined; },
    round: (v, p = 0) => Math.round(num(v) * 10 ** p) / 10 ** p,
    floor: (v) => Math.floor(num(v)), ceil: (v) => Math.ceil(num(v)),
    toNumber: num, toString: (v) => (v === null || v === undefined ? "" : String(v)),
    isNumber: (v) => typeof v === "number", isString: (v) => typeof v === "string",
    isArray: Array.isArray, isNil: (v) => v === null || v === undefined,
    isObject: (v) => v !== null && (typeof v === "object" || typeof v === "function"),
    isEmpty: (v) => v === null || v === undefined || (typeof v === "object" ? Object.keys(v).length === 0 : typeof v === "string" ? v.length === 0 : true),
    includes: (c, v) => (typeof c === "string" ? c.includes(v) : list(c).includes(v)),
    size: (c) => (typeof c === "string" ? c.length : list(c).length),
    keys: (o) => Object.keys(o || {}), values: (o) => Object.values(o || {}), entries: (o) => Object.entries(o || {}),
    map: (c, f) => list(c).map((v, i) => iter(f)(v, i)), filter: (c, f) => list(c).filter((v, i) => iter(f)(v, i)),
    find: (c, f) => list(c).find((v, i) => iter(f)(v, i)), forEach: (c, f) => { list(c).forEach((v, i) => f(v, i)); return c; },
    some: (c, f) => list(c).some((v, i) => iter(f)(v, i)), every: (c, f) => list(c).every((v, i) => iter(f)(v, i)),
    first: (c) => list(c)[0], head: (c) => list(c)[0], last: (c) => { const l = list(c); return l[l.length - 1]; },
    uniq: (c) => [...new Set(list(c))], range: (a, b, s = 1) => { if (b === undefined) { b = a; a = 0; } const r = []; for (let i = a; s > 0 ? i < b : i > b; i += s) r.push(i); return r; },
    times: (n, f = (i) => i) => Array.from({length: Math.max(0, num(n) | 0)}, (_v, i) => f(i)),
    pick: (o, ...ks) => Object.fromEntries(ks.flat().filter((k) => o && k in o).map((k) => [k, o[k]])),
    cloneDeep: clone, clone: (v) => (Array.isArray(v) ? [...v] : v && typeof v === "object" ? {...v} : v),
    merge: (o, ...more) => Object.assign(o, ...more),
    capitalize: (v) => { const t = String(v ?? "").toLowerCase(); return t.charAt(0).toUpperCase() + t.slice(1); },
  };
})();
