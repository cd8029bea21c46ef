import { Type } from '@sinclair/typebox';
import { AuditStamp, IdParam, LiteralUnion } from './common.ts';

/** The CRMs an account can connect; each names the Contact field that holds its record id. */
export const INTEGRATION_TYPES = ['hubspot', 'pipedrive', 'activecampaign'] as const;

/** A credential: visible ASCII only (it travels in a header or a query parameter). */
const Token = (description: string) =>
  Type.String({ minLength: 1, maxLength: 512, pattern: '^[\\x21-\\x7E]+$', description });

const ListMapping = Type.Object({
  crmListId: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The HubSpot list id, Pipedrive filter id or ActiveCampaign list id.',
  }),
  listId: Type.String({ format: 'uuid', description: 'The Sparrow list its people are added to.' }),
});

const settingsFields = {
  syncContacts: Type.Optional(
    Type.Boolean({ description: 'Import people with a phone number from the CRM (default true).' }),
  ),
  writeOptOuts: Type.Optional(
    Type.Boolean({ description: 'Write opt-outs and opt-ins to the CRM record (default true).' }),
  ),
  logMessages: Type.Optional(
    Type.Boolean({
      description: 'Log every message to or from a synced contact on its CRM record (default true).',
    }),
  ),
  intervalMinutes: Type.Optional(
    Type.Integer({
      minimum: 5,
      maximum: 1440,
      description: 'Minutes between incremental syncs (default 15).',
    }),
  ),
  lists: Type.Optional(
    Type.Array(ListMapping, {
      maxItems: 20,
      description: 'CRM lists kept in Sparrow lists (whose `source` names them).',
    }),
  ),
};

export const CreateIntegrationBody = Type.Object({
  type: LiteralUnion(INTEGRATION_TYPES, { description: '`hubspot`, `pipedrive` or `activecampaign`.' }),
  accessToken: Type.Optional(Token('HubSpot: a private-app access token.')),
  apiToken: Type.Optional(Token('Pipedrive: the API token.')),
  apiUrl: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'ActiveCampaign: the account URL (https://<name>.api-us1.com).',
    }),
  ),
  apiKey: Type.Optional(Token('ActiveCampaign: the API key.')),
  webhookSecret: Type.Optional(
    Token(
      "HubSpot: the app's client secret; with it, HubSpot webhooks (X-HubSpot-Signature-v3) sent to " +
        'POST /v1/providers/hubspot/{integrationId}/webhook on the public listener start a sync at once.',
    ),
  ),
  ...settingsFields,
});

export const UpdateIntegrationBody = Type.Object({
  accessToken: Type.Optional(Token('HubSpot: a new access token (checked with HubSpot).')),
  apiToken: Type.Optional(Token('Pipedrive: a new API token (checked).')),
  apiUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  apiKey: Type.Optional(Token('ActiveCampaign: a new API key (checked).')),
  webhookSecret: Type.Optional(Token("HubSpot: the app's client secret that signs its webhooks.")),
  ...settingsFields,
});

export const DeleteIntegrationQuery = Type.Object({
  clearIds: Type.Optional(
    Type.Boolean({ description: "Also remove the CRM's id field from every contact (kept by default)." }),
  ),
});

export const Integration = Type.Object({
  id: Type.String(),
  type: Type.String({ description: '`hubspot`, `pipedrive` or `activecampaign`.' }),
  status: Type.String({
    description:
      '`active`; `error`: the CRM refused the credential (nothing syncs until a new one is given).',
  }),
  apiUrl: Type.Optional(Type.String({ description: "ActiveCampaign's account URL." })),
  syncs: Type.Object(
    {
      contacts: Type.Boolean(),
      optOuts: Type.Boolean(),
      messages: Type.Boolean(),
      intervalMinutes: Type.Integer(),
      lists: Type.Array(Type.Object({ crmListId: Type.String(), listId: Type.String() })),
    },
    { description: 'What the connection keeps in step.' },
  ),
  lastSynced: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the last sync run finished.' }),
  ),
  syncing: Type.Boolean({ description: 'A sync run is in progress (or due now).' }),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description:
      'The last run: `read`, `created`, `updated`, `unchanged`, `withoutPhone` (not imported), `duplicatePhone` ' +
      '(lost to a lower CRM id with the same phone), `listMembers`; and the writes to the CRM: `pushed`, `pushPending`, `pushFailed`.',
  }),
  lastError: Type.Optional(
    Type.Object({
      code: Type.String(),
      description: Type.String(),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
  created: AuditStamp,
  updated: AuditStamp,
});

export const IntegrationParams = IdParam('accountId', 'integrationId');
