import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.ts';
import { twilioAccount } from '../providers/instances.ts';
import { verifyTwilioSignature } from '../providers/twilio/webhooks.ts';

/**
 * Checks X-Twilio-Signature of a carrier callback (messages, statuses, calls) against the URL Twilio
 * was given: our public address + the path (with its query). The signature is the auth token's of
 * the instance the callback names (`twilio`, TWILIO_AUTH_TOKEN, unless a Twilio instance of PROVIDERS
 * is named). Without such an instance or its auth token no callback can be authenticated, so all are
 * refused. A failure answers 403 PROV-001.
 */
export function checkTwilioSignature(app: FastifyInstance, req: FastifyRequest, instance = 'twilio'): void {
  const authToken = twilioAccount(app.ctx.config, instance)?.authToken;
  const signature = req.headers['x-twilio-signature'];
  const url = `${app.ctx.config.externalsUrl}${req.url}`;
  if (!authToken || typeof signature !== 'string') fail('PROV-001');
  if (!verifyTwilioSignature(authToken, url, req.body as Record<string, string>, signature)) fail('PROV-001');
}
