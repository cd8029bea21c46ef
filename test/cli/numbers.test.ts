import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabase } from '../helpers.ts';

const run = promisify(execFile);
const BIN = path.resolve('bin/sparrow.js');

/** `sparrow numbers assign|unassign|list`: the operator's word that a carrier number is an account's (issue 28). */
describe('sparrow numbers', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    db = await freshDatabase();
  });
  after(() => db.drop());

  const env = () => ({
    ...process.env,
    DATABASE_URL: db.url,
    PROVIDERS: JSON.stringify([
      { name: 'carrier-b', kind: 'smpp', url: 'smpp://127.0.0.1:9', systemId: 'sparrow' },
    ]),
  });
  const sparrow = (...args: string[]) => run(process.execPath, [BIN, ...args], { env: env() });
  /** A command expected to fail: its exit code and stderr. */
  const refused = async (...args: string[]) => {
    try {
      await sparrow(...args);
    } catch (err) {
      const e = err as { code: number; stderr: string };
      return { code: e.code, stderr: e.stderr };
    }
    assert.fail(`sparrow ${args.join(' ')} succeeded`);
  };
  const lines = (out: string) =>
    out
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));

  it('assigns a carrier number to one account at a time, lists it, and takes it back', async () => {
    const a = JSON.parse((await sparrow('accounts', 'create', '--name', 'Owner')).stdout).accountId;
    const b = JSON.parse((await sparrow('accounts', 'create', '--name', 'Other')).stdout).accountId;

    const made = await sparrow('numbers', 'assign', a, '+1 800 555 1234', '--provider', 'carrier-b');
    const assigned = JSON.parse(made.stdout);
    assert.deepEqual(
      [assigned.accountId, assigned.number, assigned.provider, assigned.numberProvider, assigned.verified],
      [a, '+18005551234', 'carrier-b', 'carrier-b', true],
    );
    assert.equal(made.stderr, '');
    // Again: the same answer, nothing doubled.
    const again = JSON.parse(
      (await sparrow('numbers', 'assign', a, '+18005551234', '--provider', 'carrier-b')).stdout,
    );
    assert.equal(again.phoneNumberId, assigned.phoneNumberId);

    // Another account: refused, naming the holder.
    const taken = await refused('numbers', 'assign', b, '+18005551234', '--provider', 'carrier-b');
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, new RegExp(`held by account ${a}.*\\(NUM-002\\)`));

    assert.deepEqual(
      lines((await sparrow('numbers', 'list')).stdout).map((l) => [l.accountId, l.number, l.provider]),
      [[a, '+18005551234', 'carrier-b']],
    );
    assert.deepEqual(lines((await sparrow('numbers', 'list', '--account', b)).stdout), []);

    const back = JSON.parse(
      (await sparrow('numbers', 'unassign', a, '+18005551234', '--provider', 'carrier-b')).stdout,
    );
    assert.deepEqual([back.unassigned, back.released], [true, true]);
    assert.deepEqual(lines((await sparrow('numbers', 'list')).stdout), []);
    // Now free: the other account may be given it.
    const moved = JSON.parse(
      (await sparrow('numbers', 'assign', b, '+18005551234', '--provider', 'carrier-b')).stdout,
    );
    assert.equal(moved.accountId, b);
  });

  it('refuses bad input with a usage line, and notes a carrier this configuration does not have', async () => {
    const a = JSON.parse((await sparrow('accounts', 'create')).stdout).accountId;
    const cases: [string[], number, RegExp][] = [
      [['numbers', 'assign', a, '+18005550001'], 2, /--provider NAME is needed/],
      [['numbers', 'assign', 'nope', '+18005550001', '--provider', 'carrier-b'], 2, /not an account id/],
      [['numbers', 'assign', a, '12345', '--provider', 'carrier-b'], 1, /NUM-004/],
      [['numbers', 'assign', a, '+18005550001', '--provider', 'simulator'], 1, /VAL-001/],
      [['numbers', 'assign', a, '+18005550001', '--provider', 'Bad!'], 1, /VAL-001/],
      [
        [
          'numbers',
          'assign',
          '01900000-0000-7000-8000-000000000000',
          '+18005550001',
          '--provider',
          'carrier-b',
        ],
        1,
        /no account/,
      ],
      [['numbers', 'unassign', a, '+18005550001', '--provider', 'carrier-b'], 1, /NUM-001/],
    ];
    for (const [args, code, stderr] of cases) {
      const r = await refused(...args);
      assert.equal(r.code, code, args.join(' '));
      assert.match(r.stderr, stderr, args.join(' '));
    }
    const elsewhere = await sparrow('numbers', 'assign', a, '+18005550002', '--provider', 'carrier-z');
    assert.equal(JSON.parse(elsewhere.stdout).provider, 'carrier-z');
    assert.match(elsewhere.stderr, /carrier-z is not configured here/);
  });
});
