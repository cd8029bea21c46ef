/** The simulator's memory-lean bookkeeping: pending receipts in due order, and accepted submissions. */

/** A receipt waiting for its delivery time: the submission it answers, and whether the carrier blocked it. */
export interface Pending {
  due: number;
  accountId: string;
  id: string;
  attempt: number;
  blocked: boolean;
  tries: number;
}

/**
 * A queue ordered by due time because every entry is pushed with now + a constant delay. Entries
 * live in a growable ring of typed arrays, a UUID message id as four 32-bit words (about 40
 * bytes a receipt, nothing for the garbage collector to trace): a backlog of a million receipts
 * stays small. Any other id shape is kept as a string on the side.
 */
export class DueQueue {
  private cap = 1024;
  private due = new Float64Array(this.cap);
  private words = new Uint32Array(this.cap * 4);
  private attempts = new Int32Array(this.cap);
  /** Bit 0: blocked; bit 1: the id is in `strings`; the other bits: sink tries so far. */
  private flags = new Int32Array(this.cap);
  /** Each entry's account, as an index into `accountIds` (accounts are few: interned, never freed). */
  private accounts = new Int32Array(this.cap);
  private readonly accountIds: string[] = [];
  private readonly accountIndex = new Map<string, number>();
  private readonly strings = new Map<number, string>();
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(p: Pending): void {
    if (this.count === this.cap) this.grow();
    const i = (this.head + this.count) % this.cap;
    this.due[i] = p.due;
    this.attempts[i] = p.attempt;
    let a = this.accountIndex.get(p.accountId);
    if (a === undefined) {
      a = this.accountIds.push(p.accountId) - 1;
      this.accountIndex.set(p.accountId, a);
    }
    this.accounts[i] = a;
    const compact = uuidWords(p.id, this.words, i * 4);
    if (!compact) this.strings.set(i, p.id);
    this.flags[i] = (p.tries << 2) | (compact ? 0 : 2) | (p.blocked ? 1 : 0);
    this.count++;
  }

  /** Due time of the first entry, or Infinity. */
  nextDue(): number {
    return this.count > 0 ? this.due[this.head] : Number.POSITIVE_INFINITY;
  }

  /** Removes and answers the entries due at `now`, at most `max` (oldest first). */
  takeDue(now: number, into: Pending[], max: number): void {
    while (this.count > 0 && this.due[this.head] <= now && into.length < max) {
      const i = this.head;
      const f = this.flags[i];
      let id: string;
      if (f & 2) {
        id = this.strings.get(i) as string;
        this.strings.delete(i);
      } else {
        id = uuidString(this.words, i * 4);
      }
      into.push({
        due: this.due[i],
        accountId: this.accountIds[this.accounts[i]],
        id,
        attempt: this.attempts[i],
        blocked: (f & 1) === 1,
        tries: f >> 2,
      });
      this.head = (this.head + 1) % this.cap;
      this.count--;
    }
  }

  clear(): void {
    this.head = 0;
    this.count = 0;
    this.strings.clear();
  }

  private grow(): void {
    const cap = this.cap * 2;
    const due = new Float64Array(cap);
    const words = new Uint32Array(cap * 4);
    const attempts = new Int32Array(cap);
    const flags = new Int32Array(cap);
    const accounts = new Int32Array(cap);
    const strings = new Map<number, string>();
    for (let n = 0; n < this.count; n++) {
      const i = (this.head + n) % this.cap;
      due[n] = this.due[i];
      words.set(this.words.subarray(i * 4, i * 4 + 4), n * 4);
      attempts[n] = this.attempts[i];
      flags[n] = this.flags[i];
      accounts[n] = this.accounts[i];
      const str = this.strings.get(i);
      if (str !== undefined) strings.set(n, str);
    }
    this.cap = cap;
    this.due = due;
    this.words = words;
    this.attempts = attempts;
    this.flags = flags;
    this.accounts = accounts;
    this.strings.clear();
    for (const [k, v] of strings) this.strings.set(k, v);
    this.head = 0;
  }
}

/**
 * Writes a lower-case UUID as four 32-bit words at out[at..at+3]; false for any other string
 * (upper case too: the string is rebuilt from the words, so it must come back identical). One
 * pass over the characters, nothing allocated: it runs twice for every submission.
 */
function uuidWords(id: string, out: Uint32Array, at: number): boolean {
  if (id.length !== 36) return false;
  let word = 0;
  let digits = 0;
  let w = at;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    let v: number;
    if (c >= 48 && c <= 57) v = c - 48;
    else if (c >= 97 && c <= 102) v = c - 87;
    else return false;
    word = (word << 4) | v;
    if (++digits === 8) {
      out[w++] = word >>> 0;
      word = 0;
      digits = 0;
    }
  }
  return true;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex8(n: number): string {
  return HEX[n >>> 24] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];
}

/** The UUID string of four words written by uuidWords. */
function uuidString(w: Uint32Array, at: number): string {
  const a = hex8(w[at]);
  const b = hex8(w[at + 1]);
  const c = hex8(w[at + 2]);
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex8(w[at + 3])}`;
}

/** Parses a UUID into four words and back (exported for tests of the round trip). */
export function uuidRoundTrip(id: string): string | undefined {
  const w = new Uint32Array(4);
  return uuidWords(id, w, 0) ? uuidString(w, 0) : undefined;
}

/**
 * Attempt bits per message id (bit n: attempt n was accepted, n < 31). UUIDs are stored as four
 * 32-bit words in an open-addressing table (about 40 bytes an id at most half full), not as
 * string keys of a Map (well over 100 bytes an id): a million remembered submissions stay small.
 * Any other id shape goes to a Map.
 */
export class AttemptBits {
  private keys = new Uint32Array(4 * 1024);
  /** 0: empty slot (a stored id always has a bit set). */
  private bits = new Uint32Array(1024);
  private count = 0;
  private readonly other = new Map<string, number>();
  private readonly w = new Uint32Array(4);

  get(id: string): number {
    if (!this.words(id)) return this.other.get(id) ?? 0;
    return this.bits[this.slot()];
  }

  set(id: string, value: number): void {
    if (!this.words(id)) {
      this.other.set(id, value);
      return;
    }
    let i = this.slot();
    if (this.bits[i] === 0) {
      if ((this.count + 1) * 2 > this.bits.length) {
        this.grow();
        i = this.slot();
      }
      this.count++;
      this.keys.set(this.w, i * 4);
    }
    this.bits[i] = value;
  }

  /** Parses a UUID into this.w; false for any other string. */
  private words(id: string): boolean {
    return uuidWords(id, this.w, 0);
  }

  /** The slot holding this.w, or the empty slot where it goes (linear probing). */
  private slot(): number {
    const w = this.w;
    const mask = this.bits.length - 1;
    // The last words of a UUIDv7 are random; the first are a timestamp.
    let i = (Math.imul(w[3] ^ Math.imul(w[2], 0x9e3779b1), 0x85ebca6b) ^ w[0] ^ w[1]) & mask;
    for (;;) {
      if (this.bits[i] === 0) return i;
      const k = i * 4;
      const keys = this.keys;
      if (keys[k] === w[0] && keys[k + 1] === w[1] && keys[k + 2] === w[2] && keys[k + 3] === w[3]) return i;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldBits = this.bits;
    const saved = Uint32Array.from(this.w);
    this.keys = new Uint32Array(oldKeys.length * 2);
    this.bits = new Uint32Array(oldBits.length * 2);
    for (let j = 0; j < oldBits.length; j++) {
      if (oldBits[j] === 0) continue;
      this.w.set(oldKeys.subarray(j * 4, j * 4 + 4));
      const i = this.slot();
      this.keys.set(this.w, i * 4);
      this.bits[i] = oldBits[j];
    }
    this.w.set(saved);
  }
}
