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

/** An empty 204 answer (the route's schema declares its 204 as null: nothing is sent). */
export function noContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
