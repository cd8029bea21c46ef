import { BUILT_IN_PROVIDERS, type ProviderKind } from '../../providers/names.ts';
import type { Providers } from '../../providers/registry.ts';
import type { Page } from '../page.ts';

/** A provider instance a route may name, as the API shows it: never its address or credentials. */
export interface ProviderChoice {
  name: string;
  kind: ProviderKind;
  /** `simulator`, `twilio` (TWILIO_*) or `smpp` (SMPP_*); false for an instance of PROVIDERS. */
  builtIn: boolean;
}

/**
 * A page of the provider instances of this process (docs/routing.md, "Provider instances"):
 * exactly the registry's, in its order (the simulator, which every process has, production too;
 * `twilio` and `smpp` when configured; then PROVIDERS as listed). The same for every account: they
 * are the operator's. Only name and kind leave: URLs, hosts and credentials stay in the registry.
 */
export function listProviders(
  providers: Pick<Providers, 'instances'>,
  page: { offset: number; limit: number },
): Page<ProviderChoice> {
  const all = providers.instances();
  return {
    items: all.slice(page.offset, page.offset + page.limit).map(({ name, kind }) => ({
      name,
      kind,
      builtIn: (BUILT_IN_PROVIDERS as readonly string[]).includes(name),
    })),
    totalCount: all.length,
    offset: page.offset,
    limit: page.limit,
  };
}
