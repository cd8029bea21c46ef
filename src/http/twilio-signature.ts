import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.ts';
import { twilioAccount } from '../providers/instances.ts';
import { verifyTwilioSignature } from '../providers/twilio/webhooks.ts';

/**
 * Checks X-Twilio-Signature of a carrier callback (messages, statuses, calls) and answers the
 * Twilio instance it is for: the one `?provider=NAME` names, else the built-in `twilio`
 * (TWILIO_AUTH_TOKEN). The signature is that instance's auth token's over the URL Twilio was given:
 * our public address + the path (with its query). Without such an instance or its auth token no
 * callback can be authenticated, so all are refused. A failure answers 403 PROV-001.
 */
export function signedTwilioInstance(app: FastifyInstance, req: FastifyRequest): string {
  const instance = (req.query as { provider?: string } | undefined)?.provider ?? 'twilio';
  const authToken = twilioAccount(app.ctx.config, instance)?.authToken;
  const signature = req.headers['x-twilio-signature'];
  const url = `${app.ctx.config.externalsUrl}${req.url}`;
  if (!authToken || typeof signature !== 'string') fail('PROV-001');
  if (!verifyTwilioSignature(authToken, url, req.body as Record<string, string>, signature)) fail('PROV-001');
  return instance;
}
