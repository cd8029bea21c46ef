import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import type { PartInfo } from './text.ts';

/** How long the parts of a concatenated submission wait for the rest. */
export const PARTS_TTL_MS = 5 * 60_000;
/**
 * Most parts a concatenated submission may declare. The longest text Sparrow sends is 1,600
 * characters, which is 25 parts at the smallest standard part size (66 UCS-2 characters with a
 * 16-bit reference); 32 leaves room for an ESME that splits a little shorter. SAR allows 255, but a
 * message of 255 parts would be longer than Sparrow sends: it is refused at its first part.
 */
export const MAX_PARTS = 32;

/** Bytes of pending parts allowed per bind, per credential and in the whole server. */
export interface PartsBudget {
  perBind: number;
  perCredential: number;
  total: number;
}

export const DEFAULT_PARTS_BUDGET: PartsBudget = {
  perBind: 1 << 20,
  perCredential: 4 << 20,
  total: 32 << 20,
};

/**
 * What the heap holds per part and per message beyond their strings' characters, so that the
 * count is never below what is held: measured on Node 20 (decoded PDUs through submittedText, then
 * add, heapUsed after gc, 5,000 first parts), 1,324 / 1,601 / 4,519 bytes a message of one part of
 * 1 / 150 / 1,600 characters against 1,352 / 1,650 / 4,550 counted with these. Characters count
 * two bytes each (V8 keeps a string in one byte a character only when it is Latin-1).
 */
const PART_OVERHEAD = 300;
const ENTRY_OVERHEAD = 800;

/** Who sent a part: the bind (its session) and its credential. */
export interface PartOwner {
  bind: object;
  credentialId: string;
}

/** What the server knows of a message in the making, to tell the ESME when it expires unassembled. */
export interface PendingMessage {
  credentialId: string;
  accountId: string;
  source: string;
  destination: string;
  /** The registered_delivery asked for (bits 0–1 of the parts' field, the largest seen). */
  receiptMask: number;
  /** The ids its parts were answered with (one per arrival, a part sent twice included). */
  ids: string[];
  /** The text of its lowest part, for the receipt's `text:`. */
  firstText: string;
  first: number;
}

interface Pending extends PendingMessage {
  count: number;
  texts: Map<number, string>;
  /** The id answered for each part, by part number (the ids of earlier copies stay in `ids`). */
  partIds: Map<number, string>;
  chars: number;
  bytes: number;
  /** The bytes charged to each bind that sent a part. */
  byBind: Map<object, number>;
}

/** A part's details beyond its text: who sent it, for whom, and whether a receipt was asked for. */
export interface PartOrigin extends PartOwner {
  accountId: string;
  source: string;
  destination: string;
  receiptMask: number;
}

/** What became of a part. */
export type PartOutcome =
  /** Kept: answer the part's own id with ESME_ROK. */
  | { kind: 'kept' }
  /** The message is complete: its text, and the ids the other parts were answered with. */
  | { kind: 'whole'; text: string; otherIds: string[] }
  /** Not kept, nothing changed: a budget is spent (ESME_RMSGQFUL) or the text would be too long (ESME_RINVMSGLEN). */
  | { kind: 'refused'; reason: 'full' | 'length' };

/**
 * The parts of concatenated submissions until all have arrived, keyed by who sent them (the
 * credential), the addresses and the reference. Held in bytes per bind, per credential and in the
 * whole server (PartsBudget): a part that would take any of them past its budget is refused, and
 * nothing kept is ever dropped to make room, so a part answered ESME_ROK stays until its message
 * completes or PARTS_TTL_MS has passed since the message's first part (then `expire` answers it,
 * for a receipt). A part that completes its message is always taken (it frees what its message held).
 */
export class PartsAssembler {
  private readonly pending = new Map<string, Pending>();
  private readonly perBind = new Map<object, number>();
  private readonly perCredential = new Map<string, number>();
  private held = 0;

  constructor(
    readonly budget: PartsBudget = DEFAULT_PARTS_BUDGET,
    private readonly ttlMs = PARTS_TTL_MS,
  ) {}

  /** Keeps one part (answered `id` unless it completes the message), or refuses it. */
  add(key: string, origin: PartOrigin, part: PartInfo, text: string, id: string): PartOutcome {
    if (part.count > MAX_PARTS || text.length > MAX_TEXT_LENGTH) return { kind: 'refused', reason: 'length' };
    const k = `${key}|${part.ref}|${part.count}`;
    const entry = this.pending.get(k);
    const previous = entry?.texts.get(part.index);
    const chars = (entry?.chars ?? 0) - (previous?.length ?? 0) + text.length;
    if (chars > MAX_TEXT_LENGTH) return { kind: 'refused', reason: 'length' };
    const completes = (entry?.texts.size ?? 0) + (previous === undefined ? 1 : 0) >= part.count;
    if (completes && entry) return this.complete(k, entry, part.index, text);
    const cost =
      PART_OVERHEAD +
      2 * (text.length + id.length) +
      (entry ? 0 : ENTRY_OVERHEAD + 2 * (k.length + origin.source.length + origin.destination.length));
    if (!this.fits(origin, cost)) return { kind: 'refused', reason: 'full' };
    const e: Pending = entry ?? {
      credentialId: origin.credentialId,
      accountId: origin.accountId,
      source: origin.source,
      destination: origin.destination,
      receiptMask: 0,
      ids: [],
      firstText: text,
      first: Date.now(),
      count: part.count,
      texts: new Map(),
      partIds: new Map(),
      chars: 0,
      bytes: 0,
      byBind: new Map(),
    };
    if (!entry) this.pending.set(k, e);
    // The text of a part sent again replaces the first copy's; both ids were answered, both are kept.
    e.texts.set(part.index, text);
    e.partIds.set(part.index, id);
    e.ids.push(id);
    e.chars = chars;
    e.receiptMask = Math.max(e.receiptMask, origin.receiptMask);
    if (part.index === Math.min(...e.texts.keys())) e.firstText = text;
    this.charge(e, origin, cost);
    return { kind: 'kept' };
  }

  /** Messages still waiting for parts. */
  get size(): number {
    return this.pending.size;
  }

  /** Bytes held by pending parts in the whole server (the total the budget bounds). */
  get bytes(): number {
    return this.held;
  }

  /** Bytes held for one credential's pending parts. */
  bytesOfCredential(credentialId: string): number {
    return this.perCredential.get(credentialId) ?? 0;
  }

  /** Bytes held for the parts one bind sent (still held after it closes, until its messages end). */
  bytesOfBind(bind: object): number {
    return this.perBind.get(bind) ?? 0;
  }

  /** Takes out the messages whose first part is older than the TTL (PARTS_TTL_MS) and answers them. */
  expire(now = Date.now()): PendingMessage[] {
    const gone: PendingMessage[] = [];
    // Entries are never moved, so the map's order is the order of their first parts.
    for (const [k, v] of this.pending) {
      if (now - v.first <= this.ttlMs) break;
      this.release(k, v);
      gone.push(v);
    }
    return gone;
  }

  private complete(k: string, entry: Pending, index: number, text: string): PartOutcome {
    this.release(k, entry);
    let whole = '';
    for (let i = 1; i <= entry.count; i++) whole += i === index ? text : (entry.texts.get(i) ?? '');
    // Every id answered for another part (a part sent twice has two); the completing part is answered the message's.
    const otherIds = entry.ids.filter((partId) => partId !== entry.partIds.get(index));
    return { kind: 'whole', text: whole, otherIds };
  }

  private fits(owner: PartOwner, cost: number): boolean {
    const b = this.budget;
    return (
      this.held + cost <= b.total &&
      (this.perCredential.get(owner.credentialId) ?? 0) + cost <= b.perCredential &&
      (this.perBind.get(owner.bind) ?? 0) + cost <= b.perBind
    );
  }

  private charge(entry: Pending, owner: PartOwner, cost: number): void {
    entry.bytes += cost;
    entry.byBind.set(owner.bind, (entry.byBind.get(owner.bind) ?? 0) + cost);
    this.held += cost;
    this.perCredential.set(owner.credentialId, (this.perCredential.get(owner.credentialId) ?? 0) + cost);
    this.perBind.set(owner.bind, (this.perBind.get(owner.bind) ?? 0) + cost);
  }

  private release(k: string, entry: Pending): void {
    this.pending.delete(k);
    this.held -= entry.bytes;
    const c = (this.perCredential.get(entry.credentialId) ?? 0) - entry.bytes;
    if (c > 0) this.perCredential.set(entry.credentialId, c);
    else this.perCredential.delete(entry.credentialId);
    for (const [bind, bytes] of entry.byBind) {
      const left = (this.perBind.get(bind) ?? 0) - bytes;
      if (left > 0) this.perBind.set(bind, left);
      else this.perBind.delete(bind);
    }
  }
}
