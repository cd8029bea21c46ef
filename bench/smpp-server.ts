/**
 * SMPP server accept rate: one ESME (the `smpp` package's client) binds as transmitter and
 * submits N submit_sm (N distinct recipients, registered_delivery set) keeping WINDOW of them
 * outstanding; prints the submit_sm accepted a second (each one a sendMessages transaction: contact
 * upsert, job, message, charge, submission record), and the p50/p99 submit_sm_resp latency.
 * Run: node --import tsx bench/smpp-server.ts   Env: N (default 5000), WINDOW (default 50),
 * DATABASE_URL (else embedded PostgreSQL).
 */
import smpp, { type PDU } from 'smpp';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/client.ts';
import { activeAccountNumbers } from '../src/db/queries/phone-numbers.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createSmppCredential } from '../src/domain/smpp/create-credential.ts';
import { SmppServer } from '../src/smpp/server.ts';
import { benchDatabase, fmt } from './support.ts';

const N = Number(process.env.N ?? 5000);
const WINDOW = Number(process.env.WINDOW ?? 50);

const database = await benchDatabase();
const config = loadConfig({ LOG_LEVEL: 'warn' });
const db = createPool(database.url, 20, config.db);
const server = new SmppServer(db, config, { window: WINDOW });
try {
  const port = await server.listen(0, '127.0.0.1');
  const { account } = await createAccount(db, { name: 'smpp bench', balance: N });
  const { credential, password } = await createSmppCredential(
    db,
    account.id,
    { throughput: 100_000 },
    {},
    100,
  );
  const source = (await activeAccountNumbers(db, account.id))[0].number.slice(1);
  const session = smpp.connect({ url: `smpp://127.0.0.1:${port}` });
  await new Promise<void>((resolve, reject) => {
    session.once('error', reject);
    session.send(
      new smpp.PDU('bind_transmitter', { system_id: credential.system_id, password }),
      (pdu: PDU) => (pdu.command_status === 0 ? resolve() : reject(new Error(`bind ${pdu.command_status}`))),
    );
  });
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    let done = 0;
    const submitOne = () => {
      if (next >= N) return;
      const i = next++;
      const at = performance.now();
      session.submit_sm(
        {
          source_addr: source,
          source_addr_ton: 1,
          destination_addr: `1201${String(5550000 + i).padStart(7, '0')}`,
          dest_addr_ton: 1,
          registered_delivery: 1,
          data_coding: 0,
          short_message: Buffer.from(`Your code is ${i}`),
        },
        (resp: PDU) => {
          latencies.push(performance.now() - at);
          if (resp.command_status !== 0) failed++;
          if (++done === N) resolve();
          else submitOne();
        },
      );
    };
    for (let w = 0; w < WINDOW; w++) submitOne();
  });
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  console.log(
    `${fmt(N)} submit_sm (window ${WINDOW}) in ${fmt(seconds, 2)} s: ${fmt(N / seconds)} accepted/s, ` +
      `${failed} refused; submit_sm_resp p50 ${fmt(pct(0.5), 1)} ms, p99 ${fmt(pct(0.99), 1)} ms`,
  );
  session.destroy();
} finally {
  await server.close();
  await db.end();
  await database.stop();
}
