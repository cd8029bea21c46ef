import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signed timestamp may be from now (Stripe's default tolerance), in seconds. */
export const STRIPE_TOLERANCE_SECONDS = 300;

/** The `v1` signature Stripe computes: hex HMAC-SHA256 of `{t}.{raw body}` keyed with the endpoint secret. */
export function stripeSignature(secret: string, timestamp: number, payload: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
}

/**
 * Checks a `Stripe-Signature` header (`t=…,v1=…[,v1=…]`): one v1 must match the raw body, in
 * constant time, and `t` must be within the tolerance of now.
 */
export function verifyStripeSignature(
  secret: string,
  payload: string,
  header: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!secret || !header) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value ?? '')) timestamp = Number(value);
    if (key === 'v1' && value) signatures.push(value);
  }
  if (timestamp === undefined || Math.abs(nowSeconds - timestamp) > STRIPE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(stripeSignature(secret, timestamp, payload));
  return signatures.some((s) => {
    const given = Buffer.from(s);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
