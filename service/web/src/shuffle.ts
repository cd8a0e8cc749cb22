/**
 * Deck derivation `cardproof-shuffle-v1` in WebCrypto, byte for byte as the module
 * docstring of `cardproof.deal` describes it, so that a browser re-derives any deck from
 * its revealed seeds with nothing but the platform.
 */

import { DECK_SIZES, type DeckType, cardText } from "./cards";

export const ALGORITHM = "cardproof-shuffle-v1";
const SEED_BYTES = 32;
const MAX_CLIENT_SEED_BYTES = 256;
const TWO_32 = 2 ** 32;
const encoder = new TextEncoder();

/** Bytes on a plain ArrayBuffer: what WebCrypto takes. */
export type Bytes = Uint8Array<ArrayBuffer>;

/** Bytes from lowercase or uppercase hex; a `RangeError` for anything else. */
export function fromHex(text: string): Bytes {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new RangeError("not hex");
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function hmacKey(key: Bytes): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The public commitment to a server seed: hex SHA-256. */
export async function seedHash(serverSeed: Bytes): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", serverSeed)));
}

/** Step 2: the HMAC key of one shuffle's byte stream. */
export async function streamKey(
  serverSeed: Bytes,
  clientSeed: string,
  deckType: DeckType,
  stream: string,
): Promise<Bytes> {
  if (serverSeed.length !== SEED_BYTES) {
    throw new RangeError(`a server seed is ${SEED_BYTES} bytes, not ${serverSeed.length}`);
  }
  if (!(deckType in DECK_SIZES)) throw new RangeError(`unknown deck type ${deckType}`);
  const client: Bytes = encoder.encode(clientSeed);
  if (client.length < 1 || client.length > MAX_CLIENT_SEED_BYTES) {
    throw new RangeError(`a client seed is 1 to ${MAX_CLIENT_SEED_BYTES} UTF-8 bytes`);
  }
  if (!/^[\x01-\x7f]*$/.test(stream)) throw new RangeError("a stream label is ASCII without NUL");
  const parts = [encoder.encode(ALGORITHM), encoder.encode(deckType), encoder.encode(stream), client];
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + parts.length - 1);
  let at = 0;
  parts.forEach((part, i) => {
    if (i > 0) message[at++] = 0;
    message.set(part, at);
    at += part.length;
  });
  const key = await hmacKey(serverSeed);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

/** Steps 3 and 4: unbiased integers drawn from the stream keyed by `key`. */
export class UniformDraws {
  private readonly key: Promise<CryptoKey>;
  private counter = 0;
  private words: number[] = [];

  constructor(key: Bytes) {
    this.key = hmacKey(key);
  }

  /** The stream's next big-endian u32 word (a 32-byte block holds eight). */
  async nextWord(): Promise<number> {
    if (this.words.length === 0) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, BigInt(this.counter++));
      const block = new DataView(await crypto.subtle.sign("HMAC", await this.key, counter));
      for (let i = 0; i < 8; i++) this.words.push(block.getUint32(4 * i));
    }
    return this.words.shift() as number;
  }

  /** A uniform integer in [0, n), by rejection sampling. */
  async below(n: number): Promise<number> {
    if (!Number.isInteger(n) || n < 1 || n > TWO_32) throw new RangeError("n must be in 1..2**32");
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const x = await this.nextWord();
      if (x < limit) return x % n;
    }
  }
}

/** Step 5: the shuffled order of the deck as canonical indices, first card dealt first. */
export async function shuffle(
  deckType: DeckType,
  serverSeed: Bytes,
  clientSeed: string,
  stream = "deal",
): Promise<number[]> {
  const draws = new UniformDraws(await streamKey(serverSeed, clientSeed, deckType, stream));
  const deck = Array.from({ length: DECK_SIZES[deckType] }, (_, i) => i);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await draws.below(i + 1);
    [deck[i], deck[j]] = [deck[j] as number, deck[i] as number];
  }
  return deck;
}

/** The shuffled deck as card texts. */
export async function deckCards(
  deckType: DeckType,
  serverSeed: Bytes,
  clientSeed: string,
  stream = "deal",
): Promise<string[]> {
  const order = await shuffle(deckType, serverSeed, clientSeed, stream);
  return order.map((index) => cardText(deckType, index));
}
