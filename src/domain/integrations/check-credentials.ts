import { fail } from '../../errors.ts';
import { assertDestinationAllowed, BlockedDestinationError } from '../../net/ssrf.ts';
import { type CrmCredentials, crmClient } from './crm/index.ts';
import { CrmError, type CrmType } from './crm/types.ts';
import type { CrmAccess } from './crm-access.ts';

/** The credential fields each CRM takes. */
const NEEDS: Record<CrmType, (keyof CrmCredentials | 'apiUrl')[]> = {
  hubspot: ['accessToken'],
  pipedrive: ['apiToken'],
  activecampaign: ['apiUrl', 'apiKey'],
};

/** The credential of a request for `type`: every field it needs (else 400 VAL-001), none of another CRM's. */
export function credentialsOf(
  type: CrmType,
  input: {
    accessToken?: string;
    apiToken?: string;
    apiUrl?: string;
    apiKey?: string;
    webhookSecret?: string;
  },
): { creds: CrmCredentials; apiUrl: string | null } {
  if (input.webhookSecret !== undefined && type !== 'hubspot')
    fail('VAL-001', 'body.webhookSecret is for HubSpot connections only.');
  const missing = NEEDS[type].filter((k) => !input[k]?.trim());
  if (missing.length > 0)
    fail('VAL-001', `A ${type} connection needs ${missing.map((m) => `body.${m}`).join(' and ')}.`);
  const foreign = (['accessToken', 'apiToken', 'apiUrl', 'apiKey'] as const).filter(
    (k) => input[k] !== undefined && !NEEDS[type].includes(k),
  );
  if (foreign.length > 0)
    fail('VAL-001', `A ${type} connection takes no ${foreign.map((f) => `body.${f}`).join(', ')}.`);
  const creds: CrmCredentials = {};
  if (input.accessToken) creds.accessToken = input.accessToken.trim();
  if (input.apiToken) creds.apiToken = input.apiToken.trim();
  if (input.apiKey) creds.apiKey = input.apiKey.trim();
  if (input.webhookSecret) creds.webhookSecret = input.webhookSecret.trim();
  return { creds, apiUrl: input.apiUrl?.trim() ?? null };
}

/** ActiveCampaign's account URL: an absolute http(s) URL without credentials, passing the SSRF guard (400 INT-005). */
export async function checkApiUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail('VAL-001', 'body.apiUrl must be an absolute http(s) URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    fail('VAL-001', 'body.apiUrl must be an absolute http(s) URL.');
  if (url.username || url.password) fail('VAL-001', 'body.apiUrl must not carry credentials.');
  if (url.search || url.hash)
    fail('VAL-001', 'body.apiUrl must be the account address, without query or fragment.');
  try {
    await assertDestinationAllowed(url, allowPrivate);
  } catch (err) {
    if (err instanceof BlockedDestinationError)
      fail('INT-005', `The CRM address is not allowed: ${err.message}.`);
    throw err;
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Asks the CRM whether the credential works (an authenticated read): refused is 422 INT-002 naming
 * the CRM's answer; unreachable or unexpected is 424 INT-003.
 */
export async function verifyCredentials(
  access: CrmAccess,
  type: CrmType,
  creds: CrmCredentials,
  apiUrl: string | null,
): Promise<void> {
  try {
    await crmClient(access.http, access.bases, type, creds, apiUrl).verify();
  } catch (err) {
    if (err instanceof CrmError && err.kind === 'auth') fail('INT-002', `${err.message}.`);
    if (err instanceof CrmError) fail('INT-003', `${err.message}.`);
    throw err;
  }
}
