import type { Config } from '../config.ts';
import { configuredInstances, twilioStatusCallback } from './instances.ts';
import type { ProviderKind } from './names.ts';
import { SimulatorProvider } from './simulator/provider.ts';
import { SmppProvider } from './smpp/provider.ts';
import { TwilioProvider } from './twilio/provider.ts';
import type { Provider, ProviderName, ProviderRegistry, ProviderSink } from './types.ts';

/** The providers of this process; the simulator is always there (tests and demos reach it directly). */
export interface Providers extends ProviderRegistry {
  readonly simulator: SimulatorProvider;
  /** The names of the providers configured in this process. */
  names(): ProviderName[];
  /** The same providers with the adapter each runs on, in the order of names(): the simulator first. */
  instances(): { name: ProviderName; kind: ProviderKind }[];
}

/**
 * Builds the providers the configuration enables: the simulator always, then one provider per
 * configured instance (instances.ts): `twilio` when TWILIO_ACCOUNT_SID is set, `smpp` when
 * SMPP_URL is set, and each of PROVIDERS, under its name. Nothing connects until start().
 */
export function createProviders(config: Config, log: (msg: string) => void = () => {}): Providers {
  const simulator = new SimulatorProvider({
    deliveryDelayMs: config.simulatorDeliveryDelayMs,
    // A repeated submission comes from a dispatcher taking over an expired claim: remembering keys
    // for two leases covers it, and keeps the memory bounded by two leases' worth of sends.
    dedupeWindowMs: 2 * config.dispatchLeaseSeconds * 1000,
    onError: (err) => log(`simulator: receipt delivery failed: ${(err as Error).message}`),
  });
  const all = new Map<ProviderName, Provider>([['simulator', simulator]]);
  for (const instance of configuredInstances(config)) {
    all.set(
      instance.name,
      instance.kind === 'twilio'
        ? new TwilioProvider({
            name: instance.name,
            baseUrl: instance.baseUrl,
            accountSid: instance.accountSid,
            authToken: instance.authToken,
            timeoutMs: instance.timeoutMs,
            statusCallback: twilioStatusCallback(config.externalsUrl, instance.name),
          })
        : new SmppProvider({
            name: instance.name,
            url: instance.url,
            systemId: instance.systemId,
            password: instance.password,
            windowSize: instance.windowSize,
            maxPerSecond: instance.maxPerSecond,
            log,
          }),
    );
  }
  let started = false;
  return {
    simulator,
    names: () => [...all.keys()],
    // Every adapter says its kind (Provider.kind); a stand-in without one is taken as SMPP, as routing does.
    instances: () => [...all].map(([name, p]) => ({ name, kind: p.kind ?? 'smpp' })),
    get: (name) => all.get(name),
    async start(sink: ProviderSink) {
      if (started) return;
      started = true;
      await Promise.all([...all.values()].map((p) => p.start(sink)));
    },
    async close() {
      started = false;
      const results = await Promise.allSettled([...all.values()].map((p) => p.close()));
      for (const r of results) if (r.status === 'rejected') log(`provider close failed: ${String(r.reason)}`);
    },
  };
}
