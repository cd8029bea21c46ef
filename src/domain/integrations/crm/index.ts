import type { JsonRequester } from '../../../net/request.ts';
import { activecampaignClient } from './activecampaign.ts';
import { hubspotClient } from './hubspot.ts';
import { pipedriveClient } from './pipedrive.ts';
import type { CrmClient, CrmType } from './types.ts';

/** A connection's credentials as sealed at rest (one JSON value). */
export interface CrmCredentials {
  accessToken?: string;
  apiToken?: string;
  apiKey?: string;
  /** HubSpot: the app's client secret, which signs its webhooks (X-HubSpot-Signature-v3). */
  webhookSecret?: string;
}

/** The client of one connection: HubSpot and Pipedrive at their configured bases, ActiveCampaign at its own URL. */
export function crmClient(
  http: JsonRequester,
  bases: { hubspot: string; pipedrive: string },
  type: CrmType,
  creds: CrmCredentials,
  apiUrl?: string | null,
): CrmClient {
  if (type === 'hubspot') return hubspotClient(http, bases.hubspot, creds.accessToken ?? '');
  if (type === 'pipedrive') return pipedriveClient(http, bases.pipedrive, creds.apiToken ?? '');
  return activecampaignClient(http, apiUrl ?? '', creds.apiKey ?? '');
}
