import type { PartInfo } from './text.ts';

/** How long the parts of a concatenated submission wait for the rest. */
export const PARTS_TTL_MS = 5 * 60_000;
/** Most concatenated submissions in the making per server (older ones are dropped beyond it). */
const MAX_PENDING = 10_000;

interface Pending {
  count: number;
  texts: Map<number, string>;
  /** The submit_sm_resp id answered for each part, by part number. */
  ids: Map<number, string>;
  first: number;
}

/** A message whose parts have all arrived: its text and the ids its parts were answered with. */
export interface Assembled {
  text: string;
  /** The ids the other parts were answered with (the completing part is answered the message's id). */
  otherIds: string[];
}

/**
 * The parts of concatenated submissions until all have arrived, keyed by who sent them (the
 * credential), the addresses and the reference. A part that arrives twice replaces the first.
 * Abandoned messages expire after PARTS_TTL_MS; their parts were answered but are never sent.
 */
export class PartsAssembler {
  private pending = new Map<string, Pending>();

  /** Keeps one part (answered `id` unless it completes the message); answers the whole message once every part is in. */
  add(key: string, part: PartInfo, text: string, id: string): Assembled | undefined {
    const now = Date.now();
    this.expire(now);
    const k = `${key}|${part.ref}|${part.count}`;
    let entry = this.pending.get(k);
    if (!entry) {
      if (this.pending.size >= MAX_PENDING) {
        const oldest = this.pending.keys().next().value;
        if (oldest !== undefined) this.pending.delete(oldest);
      }
      entry = { count: part.count, texts: new Map(), ids: new Map(), first: now };
      this.pending.set(k, entry);
    }
    entry.texts.set(part.index, text);
    entry.ids.set(part.index, id);
    if (entry.texts.size < entry.count) return undefined;
    this.pending.delete(k);
    let whole = '';
    const otherIds: string[] = [];
    for (let i = 1; i <= entry.count; i++) {
      whole += entry.texts.get(i) ?? '';
      const partId = entry.ids.get(i);
      if (i !== part.index && partId) otherIds.push(partId);
    }
    return { text: whole, otherIds };
  }

  /** Messages still waiting for parts. */
  get size(): number {
    return this.pending.size;
  }

  private expire(now: number): void {
    for (const [k, v] of this.pending) {
      if (now - v.first <= PARTS_TTL_MS) break;
      this.pending.delete(k);
    }
  }
}
