import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STATUS } from '../../src/smpp/status.ts';
import { eventually } from '../helpers.ts';
import { TestEsme } from '../support/esme.ts';
import { testPort } from '../support/ports.ts';
import { sparrow, stopService, suiteServices } from './processes.ts';

describe('sparrow start with SMPP_SERVER_PORT', () => {
  const services = suiteServices();

  it('listens for ESMEs that bind with credentials from `sparrow smpp-credentials`, and unbinds them on stop', async () => {
    const dir = services.dataDir();
    const smppPort = await testPort();
    const svc = await services.start(dir, { SMPP_SERVER_PORT: String(smppPort), HOST: '127.0.0.1' });
    // The API answers /readyz as soon as it listens; the SMPP server starts right after it.
    const listening = new RegExp(`SMPP server listening on 127.0.0.1:${smppPort}`);
    await eventually(async () => listening.test(svc.output()), 30_000, 50).catch(() => {});
    assert.match(svc.output(), listening);
    const env = { DATA_DIR: dir };
    const acct = await sparrow(['accounts', 'create', '--name', 'ESME owner'], env);
    assert.equal(acct.code, 0, acct.stderr);
    const accountId = JSON.parse(acct.stdout).accountId as string;

    const bad = await sparrow(
      ['smpp-credentials', 'create', '--account', accountId, '--throughput', '0'],
      env,
    );
    assert.equal(bad.code, 2);
    const made = await sparrow(['smpp-credentials', 'create', '--account', accountId, '--name', 'core'], env);
    assert.equal(made.code, 0, made.stderr);
    const cred = JSON.parse(made.stdout) as { systemId: string; password: string; credentialId: string };
    assert.match(cred.password, /^[A-Za-z0-9]{8}$/);

    const esme = await TestEsme.connect(smppPort);
    assert.equal((await esme.bind('transceiver', cred.systemId, 'wrongpw')).command_status, STATUS.RINVPASWD);
    assert.equal((await esme.bind('transceiver', cred.systemId, cred.password)).command_status, 0);
    // The send path answers (the database is reached): a source that is not the account's.
    const resp = await esme.submit({
      source_addr: '12015559999',
      destination_addr: '12015550123',
      short_message: Buffer.from('hi'),
    });
    assert.equal(resp.command_status, STATUS.RINVSRCADR);

    assert.equal(await stopService(svc), 0);
    await eventually(async () => esme.closed);

    const deleted = await sparrow(
      ['smpp-credentials', 'delete', '--account', accountId, cred.credentialId],
      env,
    );
    assert.equal(deleted.code, 0, deleted.stderr);
    const again = await sparrow(
      ['smpp-credentials', 'delete', '--account', accountId, cred.credentialId],
      env,
    );
    assert.equal(again.code, 1);
  });
});
