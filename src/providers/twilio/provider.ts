import type { OutboundMessage, Provider, ProviderSink, SendResult } from '../types.ts';
import { mapTwilioError } from './errors.ts';

/** Settings of the Twilio-compatible adapter. */
export interface TwilioOptions {
  /** API root, e.g. https://api.twilio.com (any server speaking the same Messages resource). */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** Where the carrier posts status callbacks (our public listener). */
  statusCallback: string;
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number;
}

interface TwilioMessageResource {
  sid?: string;
  status?: string;
  error_code?: number | string | null;
  error_message?: string | null;
}

interface TwilioErrorResource {
  code?: number | string;
  message?: string;
}

/**
 * Sends through the Messages REST resource. Status callbacks and inbound messages reach us over
 * HTTP (the public listener parses them with webhooks.ts), so start() has nothing to connect.
 */
export class TwilioProvider implements Provider {
  readonly name = 'twilio' as const;
  private readonly endpoint: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  // The same (message id, attempt) asked again while this process remembers it answers the first
  // result: Twilio's Messages resource has no idempotency key of its own.
  private inFlight = new Map<string, Promise<SendResult>>();
  private recent = new Map<string, SendResult>();
  private older = new Map<string, SendResult>();
  private static readonly RECENT_MAX = 50_000;

  constructor(private readonly opts: TwilioOptions) {
    this.endpoint = `${opts.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(opts.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  send(message: OutboundMessage): Promise<SendResult> {
    const key = `${message.id}#${message.attempt}`;
    const known = this.recent.get(key) ?? this.older.get(key) ?? this.inFlight.get(key);
    if (known) return Promise.resolve(known);
    const p = this.submit(message).then((result) => {
      this.inFlight.delete(key);
      if (result.ok) this.remember(key, result);
      return result;
    });
    this.inFlight.set(key, p);
    p.catch(() => this.inFlight.delete(key));
    return p;
  }

  async start(_sink: ProviderSink): Promise<void> {}

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private remember(key: string, result: SendResult): void {
    if (this.recent.size >= TwilioProvider.RECENT_MAX) {
      this.older = this.recent;
      this.recent = new Map();
    }
    this.recent.set(key, result);
  }

  private async submit(message: OutboundMessage): Promise<SendResult> {
    const form = new URLSearchParams();
    form.set('To', message.to);
    form.set('From', message.from);
    form.set('Body', message.body);
    form.set('StatusCallback', this.opts.statusCallback);
    for (const m of message.media) form.append('MediaUrl', m.url);
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      return {
        ok: false,
        status: 'failed',
        error: {
          code: timedOut ? 'TWILIO-TIMEOUT' : 'TWILIO-NETWORK',
          description: timedOut
            ? `No answer within ${this.timeoutMs} ms`
            : `Could not reach the provider: ${(err as Error).message}`,
        },
        retryable: true,
      };
    }
    const text = await res.text().catch(() => '');
    let json: (TwilioMessageResource & TwilioErrorResource) | undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.ok && json?.sid) {
      if (json.status === 'failed' || json.status === 'undelivered') {
        const mapped = mapTwilioError(json.error_code, json.error_message ?? undefined, res.status);
        return { ok: false, status: 'failed', ...mapped };
      }
      return { ok: true, status: 'sent', providerMessageId: json.sid };
    }
    const mapped = mapTwilioError(json?.code, json?.message, res.status);
    return { ok: false, status: 'failed', ...mapped };
  }
}
