import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { claimKey, completeKey, releaseKey } from '../../db/queries/idempotency-keys.ts';
import { SpooledUpload } from '../../storage/spooled-upload.ts';
import { sendError } from './errors.ts';

/** An Idempotency-Key is 1 to this many visible ASCII characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
const KEY = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/**
 * `Idempotency-Key` on authenticated POSTs: the first response for a key is stored for 24 h and
 * replayed for the same request; the same key with another body is 422, and 409 while the first
 * is still running. 5xx answers are not stored, so a retry after a failure runs again.
 */
export function registerIdempotency(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.grant) return;
    const raw = request.headers['idempotency-key'];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!KEY.test(key))
      return sendError(
        reply,
        'IDEM-001',
        `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
      );
    const accountId = (request.params as { accountId?: string }).accountId ?? request.grant.accounts[0];
    const path = request.url.split('?')[0];
    const body =
      typeof request.body === 'string'
        ? request.body
        : request.body instanceof SpooledUpload
          ? `upload sha256 ${request.body.sha256}`
          : JSON.stringify(request.body ?? null);
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('base64url');
    const existing = await claimKey(app.ctx.db, accountId, {
      clientId: request.grant.clientId,
      key,
      method: request.method,
      path,
      hash,
    });
    if (!existing) {
      request.idempotency = { clientId: request.grant.clientId, key };
      return;
    }
    if (existing.request_hash !== hash) return sendError(reply, 'IDEM-002');
    if (!existing.completed_at) return sendError(reply, 'IDEM-003');
    reply.code(existing.status_code ?? 200);
    reply.header('content-type', existing.response_type ?? 'application/json; charset=utf-8');
    reply.header('Idempotent-Replayed', 'true');
    return reply.send(existing.response_body ?? '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const idem = request.idempotency;
    if (!idem) return payload;
    request.idempotency = undefined;
    const accountId = (request.params as { accountId?: string }).accountId ?? request.grant!.accounts[0];
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await releaseKey(app.ctx.db, accountId, idem.clientId, idem.key);
    } else {
      await completeKey(app.ctx.db, accountId, {
        clientId: idem.clientId,
        key: idem.key,
        status: reply.statusCode,
        body: payload,
        type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      });
    }
    return payload;
  });
}
