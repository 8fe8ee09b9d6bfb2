// The media byte channel over the WebSocket: a binary message is a 4-byte big-endian
// header length, a JSON header, then the body. Uploads are offered first (the server
// may already have the bytes); downloads are checked against their sha256 and kept by
// hash for the page's life.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function envelope(header, body = new Uint8Array()) {
  const head = encoder.encode(JSON.stringify(header));
  const message = new Uint8Array(4 + head.length + body.length);
  new DataView(message.buffer).setUint32(0, head.length);
  message.set(head, 4);
  message.set(body, 4 + head.length);
  return message;
}

export function openEnvelope(buffer) {
  const bytes = new Uint8Array(buffer);
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  return { header: JSON.parse(decoder.decode(bytes.subarray(4, 4 + length))), body: bytes.subarray(4 + length) };
}

// SHA-256 of bytes, as hex: the browser's own where the page is a secure context
// (https, localhost), else this page's.
export async function sha256(bytes) {
  if (globalThis.crypto?.subtle) {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return sha256Fallback(bytes);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

function sha256Fallback(input) {
  const bytes = new Uint8Array(input);
  const length = bytes.length;
  const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  const hash = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotate = (x, n) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, h].forEach((value, i) => { hash[i] = (hash[i] + value) >>> 0; });
  }
  return [...hash].map((x) => x.toString(16).padStart(8, "0")).join("");
}

export class MediaChannel {
  /** `socket()` is the open WebSocket (or null); `onBadHash()` is told of a download that failed its check. */
  constructor(socket, onBadHash) {
    this.socket = socket;
    this.onBadHash = onBadHash;
    this.cache = new Map(); // hash -> Promise<object URL>
    this.waiting = new Map(); // hash -> {resolve, reject}
    this.offers = []; // uploads waiting for their media_accept, in order
  }

  // A stored file by its hash, as an object URL: fetched once, checked, kept.
  url(hash) {
    if (!this.cache.has(hash)) {
      const fetched = new Promise((resolve, reject) => {
        this.waiting.set(hash, { resolve, reject });
        this.socket()?.send(envelope({ op: "get", hash }));
        setTimeout(() => { if (this.waiting.delete(hash)) reject(new Error("timeout")); }, 30000);
      });
      this.cache.set(hash, fetched);
      fetched.catch(() => this.cache.delete(hash));
    }
    return this.cache.get(hash);
  }

  async received(buffer) {
    const { header, body } = openEnvelope(buffer);
    const pending = this.waiting.get(header.hash);
    if (!pending) return;
    this.waiting.delete(header.hash);
    if ((await sha256(body)) !== header.hash) {
      this.onBadHash();
      pending.reject(new Error("hash"));
      return;
    }
    pending.resolve(URL.createObjectURL(new Blob([body], { type: header.mime || "application/octet-stream" })));
  }

  // Offer a file; resolves when the bytes are sent (or not needed). `progress(fraction)`.
  async upload(file, progress) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const hash = await sha256(bytes);
    const accepted = new Promise((resolve, reject) => this.offers.push({ resolve, reject }));
    this.socket().send(JSON.stringify({ type: "media_offer", name: file.name, mime: file.type || "application/octet-stream", size: bytes.length, sha256: hash }));
    const answer = await accepted;
    if (answer.existing) { progress(1); return hash; }
    const socket = this.socket();
    socket.send(envelope({ op: "put", upload_id: answer.upload_id }, bytes));
    while (socket.bufferedAmount > 0) {
      progress(1 - socket.bufferedAmount / bytes.length);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    progress(1);
    return hash;
  }

  // A `media_accept` or a media `error` answers the oldest offer.
  answered(frame) {
    const offer = this.offers.shift();
    if (!offer) return false;
    if (frame.type === "media_accept") offer.resolve(frame);
    else offer.reject(new Error(frame.message));
    return true;
  }
}
