import type { AppContext } from '../../context.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { IntegrationRow } from '../../db/queries/integrations.ts';
import { createJsonRequester, type JsonRequester } from '../../net/request.ts';
import { type CrmCredentials, crmClient } from './crm/index.ts';
import type { CrmClient, CrmType } from './crm/types.ts';

/** What reaching a CRM takes: the SSRF-guarded requester, the base URLs, the secret box. */
export interface CrmAccess {
  http: JsonRequester;
  bases: { hubspot: string; pipedrive: string };
  secrets: SecretBox;
  allowPrivate: boolean;
}

const requesters = new Map<boolean, JsonRequester>();

/** The process's CRM access (one requester per private-address policy, kept for the process). */
export function crmAccess(ctx: Pick<AppContext, 'config' | 'secrets'>): CrmAccess {
  // WEBHOOKS_ALLOW_PRIVATE (development) also admits private CRM addresses.
  const allowPrivate = ctx.config.webhooksAllowPrivate;
  let http = requesters.get(allowPrivate);
  if (!http) {
    http = createJsonRequester({ allowPrivate });
    requesters.set(allowPrivate, http);
  }
  return {
    http,
    bases: { hubspot: ctx.config.crm.hubspotBase, pipedrive: ctx.config.crm.pipedriveBase },
    secrets: ctx.secrets,
    allowPrivate,
  };
}

/** The client of a stored connection (its credential opened from the box). */
export function clientOf(access: CrmAccess, row: IntegrationRow): CrmClient {
  const creds = JSON.parse(access.secrets.open(row.credentials)) as CrmCredentials;
  return crmClient(access.http, access.bases, row.type as CrmType, creds, row.api_url);
}
