import { SubmissionMemo } from '../submission-memo.ts';
import type { LookupMatch, OutboundMessage, Provider, ProviderSink, SendResult } from '../types.ts';
import { mapTwilioError } from './errors.ts';
import { listMatching } from './lookup.ts';

/** Twilio's longest `ValidityPeriod`, in seconds (10 hours). */
export const TWILIO_MAX_VALIDITY = 36_000;

/** Settings of the Twilio-compatible adapter. */
export interface TwilioOptions {
  /** The instance's name (default `twilio`, the one of TWILIO_*): its messages carry it. */
  name?: string;
  /** API root, e.g. https://api.twilio.com (any server speaking the same Messages resource). */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** Where the carrier posts status callbacks (our public listener; instances/twilioStatusCallback). */
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
  readonly name: string;
  readonly kind = 'twilio' as const;
  private readonly endpoint: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;
  // Twilio's Messages resource has no idempotency key of its own.
  private readonly memo = new SubmissionMemo();

  constructor(private readonly opts: TwilioOptions) {
    this.name = opts.name ?? 'twilio';
    this.endpoint = `${opts.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(opts.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  send(message: OutboundMessage): Promise<SendResult> {
    return this.memo.submit(message, (m) => this.submit(m));
  }

  /** Lists the Messages resource for this submission (same To, From, Body, since the attempt began). */
  lookup(message: OutboundMessage, since: Date): Promise<LookupMatch[]> {
    return listMatching(
      {
        endpoint: this.endpoint,
        baseUrl: this.opts.baseUrl,
        authorization: this.authorization,
        timeoutMs: this.timeoutMs,
      },
      message,
      since,
    );
  }

  async start(_sink: ProviderSink): Promise<void> {}

  async close(): Promise<void> {
    await this.memo.drain();
  }

  private async submit(message: OutboundMessage): Promise<SendResult> {
    const form = new URLSearchParams();
    form.set('To', message.to);
    form.set('From', message.from);
    form.set('Body', message.body);
    form.set('StatusCallback', this.opts.statusCallback);
    for (const m of message.media) form.append('MediaUrl', m.url);
    // What is left of the validity period, within Twilio's bounds (1..36,000 seconds; error 21624
    // outside them). A longer validity is Twilio's maximum: Sparrow's own expiry still applies.
    if (message.validityPeriod !== undefined)
      form.set('ValidityPeriod', String(Math.min(TWILIO_MAX_VALIDITY, Math.max(1, message.validityPeriod))));
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
      // Connection refused: nothing left, so routing may hand the message to another provider.
      if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') {
        return {
          ok: false,
          status: 'failed',
          error: { code: 'TWILIO-DOWN', description: 'The provider refused the connection (down)' },
          retryable: true,
        };
      }
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
        // The request may have arrived: Twilio may hold the message without our knowing its sid.
        uncertain: true,
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
