import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundMessage, ProviderError, StatusUpdate } from '../types.ts';
import { mapTwilioError } from './errors.ts';

/**
 * Checks `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the auth token, of the full URL the
 * callback was sent to followed by every POST parameter name and value, sorted by name.
 */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): boolean {
  if (!authToken || !signature) return false;
  const expected = twilioSignature(authToken, url, params);
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The signature Twilio computes for a callback (used to sign test callbacks, too). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  let data = url;
  for (const name of Object.keys(params).sort()) data += name + params[name];
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

const STATUS: Record<string, StatusUpdate['status'] | undefined> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
};

/**
 * Maps a status callback of the instance `provider` to a status update. Statuses before `sent`
 * (queued, accepted, sending, scheduled) answer undefined: the message is already `sent` on our
 * side, nothing moves.
 */
export function parseTwilioStatus(
  params: Record<string, string>,
  provider = 'twilio',
): StatusUpdate | undefined {
  const sid = params.MessageSid || params.SmsSid;
  const status = STATUS[(params.MessageStatus || params.SmsStatus || '').toLowerCase()];
  if (!sid || !status) return undefined;
  let error: ProviderError | undefined;
  if (params.ErrorCode && params.ErrorCode !== '0') {
    error = mapTwilioError(params.ErrorCode, params.ErrorMessage, 200).error;
  } else if (status === 'undelivered' || status === 'failed') {
    error = { code: status.toUpperCase(), description: `Twilio reported the message ${status}` };
  }
  return { provider, providerMessageId: sid, status, ...(error ? { error } : {}), at: new Date() };
}

/** Maps an inbound-message webhook (From, To, Body, NumMedia, MediaUrl0…) of the instance `provider` to an inbound message. */
export function parseTwilioInbound(
  params: Record<string, string>,
  provider = 'twilio',
): InboundMessage | undefined {
  const sid = params.MessageSid || params.SmsMessageSid || params.SmsSid;
  if (!sid || !params.From || !params.To) return undefined;
  const count = Math.min(Number.parseInt(params.NumMedia || '0', 10) || 0, 10);
  const media: InboundMessage['media'] = [];
  for (let i = 0; i < count; i++) {
    const url = params[`MediaUrl${i}`];
    if (!url) continue;
    const type = params[`MediaContentType${i}`];
    media.push(type ? { url, type } : { url });
  }
  return {
    provider,
    providerMessageId: sid,
    from: params.From,
    to: params.To,
    text: params.Body ?? '',
    media,
    at: new Date(),
  };
}
