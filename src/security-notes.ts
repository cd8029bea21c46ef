import type { Config } from './config.ts';

/**
 * The start-up lines that tell an operator what the public listener exposes: whether this is a
 * production process (NODE_ENV), the simulator's doors, payments and the client-address source.
 */
export function securityNotes(config: Config): string[] {
  const notes: string[] = [];
  const mode = config.production
    ? 'production (NODE_ENV=production)'
    : 'development (NODE_ENV is not production)';
  notes.push(`mode: ${mode}`);
  if (!config.simulatorEndpoints) {
    notes.push('simulator endpoints closed (404): inbound texts, calls and checkout pages of the simulator');
  } else if (config.simulatorSecret) {
    notes.push(
      'simulator endpoints open on the public listener, behind SIMULATOR_SECRET (X-Simulator-Secret)',
    );
  } else {
    notes.push(
      'simulator endpoints OPEN on the public listener without a secret: anyone who reaches it can inject texts ' +
        'and calls and pay simulated checkouts (development only; NODE_ENV=production closes them)',
    );
  }
  if (config.payments.provider === 'none') {
    notes.push(
      'payments: none (checkout answers 409 BILL-006; credit accounts with `sparrow accounts credit`)',
    );
  } else if (config.payments.provider === 'simulator') {
    notes.push('payments: simulator (simulated checkouts credit balances for free)');
  }
  const { sharefile, s3 } = config;
  notes.push(
    `hosted files (POST /v1/tools/sharefile) served on the public listener at /files/… from ${s3 ? `S3 bucket ${s3.bucket}` : `${config.dataDir}/files`}: ` +
      `up to ${sharefile.maxBytes} bytes each, ${sharefile.quotaBytes} per account, links live ${sharefile.ttlHours} h`,
  );
  if (config.trustProxy !== false) {
    notes.push(`client addresses from X-Forwarded-For (TRUST_PROXY=${config.trustProxy})`);
  }
  return notes;
}
