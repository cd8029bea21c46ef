import type { Config } from '../config.ts';
import { SimulatorProvider } from './simulator/provider.ts';
import { SmppProvider } from './smpp/provider.ts';
import { TwilioProvider } from './twilio/provider.ts';
import type { Provider, ProviderName, ProviderRegistry, ProviderSink } from './types.ts';

/** The providers of this process; the simulator is always there (tests and demos reach it directly). */
export interface Providers extends ProviderRegistry {
  readonly simulator: SimulatorProvider;
  /** The names of the providers configured in this process. */
  names(): ProviderName[];
}

/**
 * Builds the providers the configuration enables: the simulator always, Twilio when
 * TWILIO_ACCOUNT_SID is set, SMPP when SMPP_URL is set. Nothing connects until start().
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
  if (config.twilio.accountSid) {
    all.set(
      'twilio',
      new TwilioProvider({
        baseUrl: config.twilio.baseUrl,
        accountSid: config.twilio.accountSid,
        authToken: config.twilio.authToken,
        timeoutMs: config.twilio.timeoutMs,
        statusCallback: `${config.externalsUrl}/v1/providers/twilio/status`,
      }),
    );
  }
  if (config.smpp.url) {
    all.set(
      'smpp',
      new SmppProvider({
        url: config.smpp.url,
        systemId: config.smpp.systemId,
        password: config.smpp.password,
        windowSize: config.smpp.windowSize,
        maxPerSecond: config.smpp.maxPerSecond,
        log,
      }),
    );
  }
  let started = false;
  return {
    simulator,
    names: () => [...all.keys()],
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
