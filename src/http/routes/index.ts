import type { FastifyInstance } from 'fastify';
import { accountRoutes } from './accounts.ts';
import { autoresponderRoutes } from './autoresponders.ts';
import { billingRoutes } from './billing.ts';
import { callRoutes } from './calls.ts';
import { campaignRoutes } from './campaigns.ts';
import { simulatorCheckoutRoutes, stripeWebhookRoutes } from './checkout-pages.ts';
import { complianceRoutes } from './compliance.ts';
import { consoleRoutes } from './console.ts';
import { consoleSessionRoutes } from './console-session.ts';
import { contactImportRoutes } from './contact-imports.ts';
import { contactRoutes } from './contacts.ts';
import { conversationRoutes } from './conversations.ts';
import { dripRoutes } from './drips.ts';
import { exportRoutes } from './exports.ts';
import { formRoutes } from './forms.ts';
import { groupRoutes } from './groups.ts';
import { hostedFormRoutes } from './hosted-forms.ts';
import { hubspotWebhookRoutes, integrationRoutes } from './integrations.ts';
import { jobRoutes } from './jobs.ts';
import { linkRoutes } from './links.ts';
import { listRoutes } from './lists.ts';
import { meetingBookingRoutes } from './meeting-booking.ts';
import { meetingRoutes } from './meetings.ts';
import { messageRoutes } from './messages.ts';
import { numberRoutes } from './numbers.ts';
import { oauthRoutes } from './oauth.ts';
import { providerRoutes, simulatorInboundRoutes } from './providers.ts';
import { reportRoutes } from './reports.ts';
import { routeRoutes } from './routes.ts';
import { sharedFileRoutes } from './shared-files.ts';
import { sharefileRoutes } from './sharefile.ts';
import { shortLinkRoutes } from './short-links.ts';
import { smppRoutes } from './smpp.ts';
import { templateRoutes } from './templates.ts';
import { userRoutes } from './users.ts';
import { simulatorCallRoutes, voiceCallbackRoutes } from './voice-callbacks.ts';
import { webhookRoutes } from './webhooks.ts';
import { workflowTemplateRoutes } from './workflow-templates.ts';
import { workflowRoutes } from './workflows.ts';

type RoutePlugin = (app: FastifyInstance) => Promise<void>;

/** Route plugins of the API listener, one per area. */
export const apiRoutes: RoutePlugin[] = [
  oauthRoutes,
  accountRoutes,
  numberRoutes,
  groupRoutes,
  contactRoutes,
  contactImportRoutes,
  listRoutes,
  webhookRoutes,
  conversationRoutes,
  messageRoutes,
  templateRoutes,
  complianceRoutes,
  campaignRoutes,
  dripRoutes,
  callRoutes,
  billingRoutes,
  consoleRoutes,
  consoleSessionRoutes,
  userRoutes,
  reportRoutes,
  exportRoutes,
  meetingRoutes,
  workflowRoutes,
  workflowTemplateRoutes,
  formRoutes,
  linkRoutes,
  autoresponderRoutes,
  sharefileRoutes,
  jobRoutes,
  smppRoutes,
  routeRoutes,
  integrationRoutes,
];

/** Route plugins of the public (externals) listener. */
export const externalRoutes: RoutePlugin[] = [
  providerRoutes,
  voiceCallbackRoutes,
  stripeWebhookRoutes,
  hubspotWebhookRoutes,
  meetingBookingRoutes,
  hostedFormRoutes,
  shortLinkRoutes,
  sharedFileRoutes,
];

/**
 * The simulator's doors on the public listener (inbound texts, calls, the checkout page): for
 * development and demos, mounted only with SIMULATOR_ENDPOINTS (see registerSimulatorRoutes).
 */
export const simulatorRoutes: RoutePlugin[] = [
  simulatorInboundRoutes,
  simulatorCallRoutes,
  simulatorCheckoutRoutes,
];
