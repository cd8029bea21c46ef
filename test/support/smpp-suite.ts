/**
 * A test service with Sparrow's SMPP server on a free loopback port, for one describe block:
 * started in a `before` hook registered where smppSuite is called (so the block's own `before`
 * hooks, registered after it, run after it), and closed in an `after` hook with the ESMEs the
 * block's tests connected.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { PDU } from 'smpp';
import { activeAccountNumbers } from '../../src/db/queries/phone-numbers.ts';
import { SmppServer, type SmppServerOptions } from '../../src/smpp/server.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { TestEsme } from './esme.ts';

/** An SMPP credential as the API issues it (the password shown once). */
export interface Credential {
  id: string;
  systemId: string;
  password: string;
}

/** The server settings of the SMPP server's own tests: a short poll, a small window, bind lockout after 4 failures. */
export const SERVER_OPTIONS: Partial<SmppServerOptions> = {
  pollMs: 20,
  window: 5,
  maxBindsPerCredential: 100,
  bindLimits: { failuresPerSystemId: 4, failuresPerIp: 1000 },
};

export interface SmppSuite {
  readonly svc: TestService;
  readonly server: SmppServer;
  readonly port: number;
  /** The ESMEs connected through `connect` (and so closed after the block). */
  readonly esmes: TestEsme[];
  connect(): Promise<TestEsme>;
  /** A new ESME bound in this mode with this credential (asserted ESME_ROK). */
  bound(mode: 'transmitter' | 'receiver' | 'transceiver', c: Credential): Promise<TestEsme>;
  /** POST …/smpp/credentials for this account (asserted 200). */
  issue(a: TestAccount, json?: object): Promise<Credential>;
  /** The account's first active number, E.164. */
  numberOf(a: TestAccount): Promise<string>;
}

export function smppSuite(options: Partial<SmppServerOptions>, o: { workers?: boolean } = {}): SmppSuite {
  let svc: TestService | undefined;
  let server: SmppServer | undefined;
  let port = 0;
  const esmes: TestEsme[] = [];
  before(async () => {
    svc = await startTestService();
    if (o.workers) svc.startWorkers();
    server = new SmppServer(svc.db, svc.ctx.config, options);
    port = await server.listen(0, '127.0.0.1');
  });
  after(async () => {
    for (const e of esmes.splice(0)) e.close();
    await server?.close();
    await svc?.close();
  });
  const started = <T>(v: T | undefined): T => v ?? assert.fail('the SMPP suite has not started');
  const suite: SmppSuite = {
    get svc() {
      return started(svc);
    },
    get server() {
      return started(server);
    },
    get port() {
      return port;
    },
    esmes,
    async connect() {
      const e = await TestEsme.connect(port);
      esmes.push(e);
      return e;
    },
    async bound(mode, c) {
      const e = await suite.connect();
      assert.equal((await e.bind(mode, c.systemId, c.password)).command_status, 0, `bind ${mode}`);
      return e;
    },
    async issue(a, json = {}) {
      const res = await call(suite.svc.api, 'POST', `/v1/accounts/${a.accountId}/smpp/credentials`, {
        auth: a.auth,
        json,
      });
      assert.equal(res.statusCode, 200, res.body);
      return body(res).data;
    },
    async numberOf(a) {
      return (await activeAccountNumbers(suite.svc.db, a.accountId))[0].number;
    },
  };
  return suite;
}

/** submit_sm parameters from this source (E.164), to a fixed valid destination, overridable. */
export function submitParams(source: string, extra: Record<string, unknown> = {}) {
  return {
    source_addr: source.slice(1),
    source_addr_ton: 1,
    source_addr_npi: 1,
    destination_addr: '12015550123',
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    data_coding: 0,
    short_message: Buffer.from('Hello from an ESME'),
    ...extra,
  };
}

/** The text of a deliver_sm (a receipt or an inbound text). */
export function receiptText(pdu: PDU): string {
  const sm = pdu.short_message as { message: string | Buffer };
  return typeof sm.message === 'string' ? sm.message : sm.message.toString('latin1');
}
