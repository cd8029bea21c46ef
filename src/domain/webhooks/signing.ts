import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret: `whsec_` + 32 random bytes in base64 (Standard Webhooks allows 24–64). */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the decoded secret. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The `webhook-signature` header: one signature per live secret, space-separated, so receivers
 * holding either the new or the previous secret (during a rotation) verify the message.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => sign(s, id, timestamp, body)).join(' ');
}
