import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts.ts';
import { contactRoutes } from './contacts.ts';
import { groupRoutes } from './groups.ts';
import { listRoutes } from './lists.ts';
import { numberRoutes } from './numbers.ts';
import { oauthRoutes } from './oauth.ts';

type RoutePlugin = (app: FastifyInstance) => Promise<void>;

/** Route plugins of the API listener, one per area. */
export const apiRoutes: RoutePlugin[] = [oauthRoutes, accountRoutes, numberRoutes, groupRoutes, contactRoutes, listRoutes];

/** Route plugins of the public (externals) listener. */
export const externalRoutes: RoutePlugin[] = [];
