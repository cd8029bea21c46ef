import type { Queryable } from '../../db/client.ts';
import {
  type IntegrationRow,
  type IntegrationSettings,
  insertIntegration,
} from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { checkApiUrl, credentialsOf, verifyCredentials } from './check-credentials.ts';
import type { CrmType } from './crm/types.ts';
import type { CrmAccess } from './crm-access.ts';
import { checkListMappings } from './list-mappings.ts';

export interface CreateIntegrationInput extends IntegrationSettings {
  type: CrmType;
  accessToken?: string;
  apiToken?: string;
  apiUrl?: string;
  apiKey?: string;
  webhookSecret?: string;
}

/**
 * Connects a CRM: the credential is checked against the CRM (422 INT-002 when refused), sealed at
 * rest, and a first full sync is due at once. One live connection per CRM (409 INT-004).
 */
export async function createIntegration(
  db: Queryable,
  access: CrmAccess,
  accountId: string,
  input: CreateIntegrationInput,
  by: Actor,
): Promise<IntegrationRow> {
  const { creds, apiUrl: given } = credentialsOf(input.type, input);
  const apiUrl = given === null ? null : await checkApiUrl(given, access.allowPrivate);
  await checkListMappings(db, accountId, input.lists);
  await verifyCredentials(access, input.type, creds, apiUrl);
  const settings: IntegrationSettings = {};
  for (const k of ['syncContacts', 'writeOptOuts', 'logMessages', 'intervalMinutes', 'lists'] as const)
    if (input[k] !== undefined) (settings as Record<string, unknown>)[k] = input[k];
  const row = await insertIntegration(db, accountId, {
    id: newId(),
    type: input.type,
    credentials: access.secrets.seal(JSON.stringify(creds)),
    apiUrl,
    settings,
    by,
  });
  return (
    row ??
    fail(
      'INT-004',
      `The account already has a ${input.type} integration: change it with PUT or delete it first.`,
    )
  );
}
