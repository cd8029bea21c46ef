import type { LookupMatch, OutboundMessage } from '../types.ts';
import { mapTwilioError } from './errors.ts';

/** A message resource as the Messages list answers it (the fields reconciliation reads). */
interface ListedMessage {
  sid?: string;
  to?: string;
  from?: string;
  body?: string;
  status?: string;
  date_created?: string | null;
  error_code?: number | string | null;
  error_message?: string | null;
}

interface MessagePage {
  messages?: ListedMessage[];
  next_page_uri?: string | null;
}

/**
 * How far before the attempt a listed message may be dated and still match: the carrier's clock
 * is not ours. A wider window only adds candidates, and a candidate already recorded for another
 * message is never taken (settle-uncertain.ts).
 */
const CLOCK_SLACK_MS = 5 * 60_000;
/** Pages read at most for one message (100 each): the filter is one recipient from one number. */
const MAX_PAGES = 20;

/**
 * Lists the Messages resource for submissions of this message (same To, From and Body, created
 * at or after `since` less the clock slack), following next_page_uri, oldest first. Twilio's
 * `DateSent>=` filter narrows the listing server-side; the match itself is checked here.
 */
export async function listMatching(
  opts: { endpoint: string; baseUrl: string; authorization: string; timeoutMs: number },
  message: OutboundMessage,
  since: Date,
): Promise<LookupMatch[]> {
  const from = new Date(since.getTime() - CLOCK_SLACK_MS);
  const query = new URLSearchParams({ To: message.to, From: message.from, PageSize: '100' });
  // Twilio's clients send the filter as the key "DateSent>" with the value "YYYY-MM-DD".
  let url: string | undefined =
    `${opts.endpoint}?${query}&${encodeURIComponent('DateSent>')}=${from.toISOString().slice(0, 10)}`;
  const found: { at: number; match: LookupMatch }[] = [];
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const res = await fetch(url, {
      headers: { authorization: opts.authorization, accept: 'application/json' },
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    if (!res.ok) throw new Error(`Twilio Messages list answered HTTP ${res.status}`);
    const json = (await res.json()) as MessagePage;
    for (const m of json.messages ?? []) {
      const at = m.date_created ? Date.parse(m.date_created) : Number.NaN;
      if (!m.sid || m.to !== message.to || m.from !== message.from || m.body !== message.body) continue;
      if (!(at >= from.getTime())) continue;
      const rejected = m.status === 'failed' || m.status === 'undelivered';
      found.push({
        at,
        match: rejected
          ? {
              providerMessageId: m.sid,
              status: 'failed',
              error: mapTwilioError(m.error_code, m.error_message ?? undefined, 200).error,
              at: new Date(at),
            }
          : { providerMessageId: m.sid, status: 'sent', at: new Date(at) },
      });
    }
    url = json.next_page_uri ? new URL(json.next_page_uri, opts.baseUrl).toString() : undefined;
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.match);
}
