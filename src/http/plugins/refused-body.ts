import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CSV_BODY_LIMIT } from '../../schemas/limits.ts';

/**
 * How much of a refused body the listener still reads (and throws away) after answering: twice the
 * largest body any route takes (CSV uploads, 16 MiB). Read from the moment of the answer.
 */
export const REFUSED_BODY_DRAIN_BYTES = 2 * CSV_BODY_LIMIT;

/**
 * A body refused before it was read to its end (413 for its size, 401 before a large upload, 400
 * for a NUL in a CSV...) is read on and thrown away, up to REFUSED_BODY_DRAIN_BYTES, instead of the
 * connection being closed on a client that is still sending. Closing a socket with unread data
 * makes the kernel reset the connection, and a client still writing its body then fails on the
 * write before it reads the answer: Node's fetch (undici) says "fetch failed", never the 413. Read
 * to its end, the body leaves the connection usable (keep-alive) and the client sees the answer.
 *
 * A body that says (Content-Length) it is larger than the drain budget is answered and the
 * connection closed at once, as is one (chunked) that turns out larger while being drained: the
 * service does not read unbounded bytes to be polite. The request timeout (HTTP_REQUEST_TIMEOUT_MS)
 * bounds the drain's time.
 */
export function registerRefusedBodyDrain(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || request.raw.complete || request.raw.destroyed) return payload;
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > REFUSED_BODY_DRAIN_BYTES) {
      reply.header('connection', 'close');
      return payload;
    }
    // Node reads the rest of the body when the connection stays open (and closes it when the
    // answer says `close`, as Fastify's parsers and the upload routes set on a refusal).
    reply.removeHeader('connection');
    drain(request);
    return payload;
  });
}

function drain(request: FastifyRequest) {
  const raw = request.raw;
  let read = 0;
  const onData = (chunk: Buffer) => {
    read += chunk.length;
    if (read > REFUSED_BODY_DRAIN_BYTES) {
      raw.removeListener('data', onData);
      raw.socket?.destroy();
    }
  };
  raw.on('data', onData);
  raw.resume();
}
