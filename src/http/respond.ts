import type { FastifyReply } from 'fastify';
import type { Page } from '../domain/page.ts';

export type { Page };

/** `{success: true, data}` */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** `{success: true, data: [...], pagination}` */
export function page<T, U>(p: Page<T>, map: (item: T) => U) {
  return {
    success: true as const,
    data: p.items.map(map),
    pagination: {
      limit: p.limit,
      offset: p.offset,
      hasNext: p.offset + p.items.length < p.totalCount,
      totalCount: p.totalCount,
    },
  };
}

/**
 * A create answered as the published description answers it (`POST …/contacts` JSON, `POST
 * …/templates`: 201 with the collection shape): `data` is an array of the one record created, with
 * its `pagination` (docs/interface.md, "Create answers").
 */
export function createdCollection<T>(item: T) {
  return {
    success: true as const,
    data: [item],
    pagination: { limit: 1, offset: 0, hasNext: false, totalCount: 1 },
  };
}

/** An empty 204 answer (the route's schema declares its 204 as null: nothing is sent). */
export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
