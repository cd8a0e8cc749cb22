// A strict RFC 8259 JSON reader for receipts (docs/protocol.md sections 1, 4.3.1), written
// because JSON.parse cannot tell what section 4.3.1 needs told:
// - a JSON *integer* is an integer spelling (`-?(0|[1-9][0-9]*)`): `3.0`, `3e0` are not
//   integers (4.3.1, "Types"), so such numbers are read as a JsonNumber, which no integer
//   check accepts; integers beyond 2^53 are read exactly, as BigInt;
// - a member named twice keeps its *last* occurrence (4.3.1, "A member named twice");
// - a `\ud800` escape not followed by a low surrogate is not well-formed JSON (section 1).
// Every member is an own, enumerable property (a `__proto__` member included).

export class JsonNumber {
  constructor(text) {
    this.text = text;
    this.value = Number(text);
  }
}

export class JsonSyntaxError extends Error {}

const WS = new Set([' ', '\t', '\n', '\r']);
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export function parseJson(text) {
  let i = 0;
  const error = (why) => { throw new JsonSyntaxError(`${why} at ${i}`); };
  const skip = () => { while (i < text.length && WS.has(text[i])) i += 1; };

  function hex4() {
    const h = text.slice(i, i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) error('bad \\u escape');
    i += 4;
    return parseInt(h, 16);
  }

  function string() {
    i += 1; // the opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) error('unterminated string');
      const ch = text[i];
      const code = text.charCodeAt(i);
      if (ch === '"') { i += 1; return out; }
      if (code < 0x20) error('control character in a string');
      if (code >= 0xd800 && code <= 0xdfff) {
        // Raw surrogates only come in pairs from a well-formed (UTF-8 decoded) text.
        const next = text.charCodeAt(i + 1);
        if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) error('lone surrogate');
        out += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (ch !== '\\') { out += ch; i += 1; continue; }
      const e = text[i + 1];
      i += 2;
      if (e in ESCAPES) { out += ESCAPES[e]; continue; }
      if (e !== 'u') error('bad escape');
      const u = hex4();
      if (u >= 0xdc00 && u <= 0xdfff) error('lone low surrogate escape');
      if (u >= 0xd800 && u <= 0xdbff) {
        if (text[i] !== '\\' || text[i + 1] !== 'u') error('lone high surrogate escape');
        i += 2;
        const low = hex4();
        if (low < 0xdc00 || low > 0xdfff) error('high surrogate escape without its low one');
        out += String.fromCharCode(u, low);
        continue;
      }
      out += String.fromCharCode(u);
    }
  }

  function number() {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m || m[0] === '' || m[0] === '-') error('bad number');
    i += m[0].length;
    const t = m[0];
    if (!INTEGER.test(t)) return new JsonNumber(t);
    const n = Number(t);
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n; // -0 reads as 0
    return BigInt(t);
  }

  function value() {
    skip();
    const ch = text[i];
    if (ch === '{') {
      i += 1;
      const obj = {};
      skip();
      if (text[i] === '}') { i += 1; return obj; }
      for (;;) {
        skip();
        if (text[i] !== '"') error('a member name is a string');
        const name = string();
        skip();
        if (text[i] !== ':') error('expected :');
        i += 1;
        const v = value();
        // The last occurrence wins; defineProperty so that `__proto__` is a plain member.
        Object.defineProperty(obj, name, { value: v, enumerable: true, writable: true, configurable: true });
        skip();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === '}') { i += 1; return obj; }
        error('expected , or }');
      }
    }
    if (ch === '[') {
      i += 1;
      const arr = [];
      skip();
      if (text[i] === ']') { i += 1; return arr; }
      for (;;) {
        arr.push(value());
        skip();
        if (text[i] === ',') { i += 1; continue; }
        if (text[i] === ']') { i += 1; return arr; }
        error('expected , or ]');
      }
    }
    if (ch === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    if (ch === '-' || (ch >= '0' && ch <= '9')) return number();
    return error('unexpected character');
  }

  const v = value();
  skip();
  if (i !== text.length) error('trailing text');
  return v;
}

/** A JSON integer as read by parseJson (or a safe integer Number from JSON.parse). */
export function isJsonInt(v) {
  return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}

/** A value for comparing JSON values: object members sorted, BigInt and JsonNumber spelled. */
export function canonicalJson(v) {
  if (typeof v === 'bigint') return { $int: v.toString() };
  if (v instanceof JsonNumber) return { $number: v.value };
  if (Array.isArray(v)) return v.map(canonicalJson);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonicalJson(v[k])]));
  }
  return v;
}

export const sameJson = (a, b) => JSON.stringify(canonicalJson(a)) === JSON.stringify(canonicalJson(b));
