import type { Queryable } from '../../db/client.ts';
import {
  findIntegration,
  type IntegrationRow,
  type IntegrationSettings,
  updateIntegration as updateRow,
} from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { checkApiUrl, credentialsOf, verifyCredentials } from './check-credentials.ts';
import type { CrmCredentials } from './crm/index.ts';
import type { CrmAccess } from './crm-access.ts';
import { checkListMappings } from './list-mappings.ts';

/**
 * Changes what a connection syncs and/or its credential. A new credential is checked against the
 * CRM first (422 INT-002) and puts a connection in error back to `active`. A sync is due at once.
 */
export async function updateIntegration(
  db: Queryable,
  access: CrmAccess,
  accountId: string,
  id: string,
  input: IntegrationSettings & {
    accessToken?: string;
    apiToken?: string;
    apiUrl?: string;
    apiKey?: string;
    webhookSecret?: string;
  },
  by: Actor,
): Promise<IntegrationRow> {
  const row = (await findIntegration(db, accountId, id)) ?? fail('INT-001');
  let credentials: string | undefined;
  let apiUrl: string | null | undefined;
  if (input.accessToken || input.apiToken || input.apiKey || input.apiUrl) {
    const given = {
      webhookSecret: input.webhookSecret,
      accessToken: input.accessToken,
      apiToken: input.apiToken,
      apiKey: input.apiKey,
      // ActiveCampaign: a new key alone keeps the stored address.
      apiUrl: row.type === 'activecampaign' ? (input.apiUrl ?? row.api_url ?? undefined) : input.apiUrl,
    };
    const c = credentialsOf(row.type, given);
    apiUrl = c.apiUrl === null ? null : await checkApiUrl(c.apiUrl, access.allowPrivate);
    if (row.type === 'activecampaign' && !input.apiKey)
      fail('VAL-001', 'A new body.apiUrl needs its body.apiKey.');
    await verifyCredentials(access, row.type, c.creds, apiUrl);
    // A new token keeps the webhook secret unless another is given.
    const held = JSON.parse(access.secrets.open(row.credentials)) as CrmCredentials;
    if (!c.creds.webhookSecret && held.webhookSecret) c.creds.webhookSecret = held.webhookSecret;
    credentials = access.secrets.seal(JSON.stringify(c.creds));
  } else if (input.webhookSecret !== undefined) {
    // Only the webhook secret changes.
    if (row.type !== 'hubspot') fail('VAL-001', 'body.webhookSecret is for HubSpot connections only.');
    const held = JSON.parse(access.secrets.open(row.credentials)) as CrmCredentials;
    credentials = access.secrets.seal(JSON.stringify({ ...held, webhookSecret: input.webhookSecret.trim() }));
  }
  await checkListMappings(db, accountId, input.lists);
  const settings: IntegrationSettings = { ...row.settings };
  for (const k of ['syncContacts', 'writeOptOuts', 'logMessages', 'intervalMinutes', 'lists'] as const)
    if (input[k] !== undefined) (settings as Record<string, unknown>)[k] = input[k];
  return (await updateRow(db, accountId, id, { settings, credentials, apiUrl, by })) ?? fail('INT-001');
}
