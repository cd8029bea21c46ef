import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts.ts';
import { campaignRoutes } from './campaigns.ts';
import { contactRoutes } from './contacts.ts';
import { conversationRoutes } from './conversations.ts';
import { groupRoutes } from './groups.ts';
import { listRoutes } from './lists.ts';
import { messageRoutes } from './messages.ts';
import { numberRoutes } from './numbers.ts';
import { oauthRoutes } from './oauth.ts';
import { providerRoutes } from './providers.ts';
import { templateRoutes } from './templates.ts';
import { webhookRoutes } from './webhooks.ts';

type RoutePlugin = (app: FastifyInstance) => Promise<void>;

/** Route plugins of the API listener, one per area. */
export const apiRoutes: RoutePlugin[] = [
  oauthRoutes,
  accountRoutes,
  numberRoutes,
  groupRoutes,
  contactRoutes,
  listRoutes,
  webhookRoutes,
  conversationRoutes,
  messageRoutes,
  templateRoutes,
  campaignRoutes,
];

/** Route plugins of the public (externals) listener. */
export const externalRoutes: RoutePlugin[] = [providerRoutes];
