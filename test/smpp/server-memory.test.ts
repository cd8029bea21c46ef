import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PDU } from 'smpp';
import { PARTS_TTL_MS } from '../../src/smpp/assembler.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { body, call, eventually, type TestAccount } from '../helpers.ts';
import type { TestEsme } from '../support/esme.ts';
import {
  type Credential,
  receiptText,
  type SmppSuite,
  smppSuite,
  submitParams,
} from '../support/smpp-suite.ts';

/**
 * What an SMPP client can make the server hold (issue 28): pending concatenated parts within
 * their byte budgets, refused with a status past them and never dropped after ESME_ROK.
 */

/** A SAR part: `index` of `count` of message `ref`, with this text in message_payload. */
const sar = (source: string, ref: number, count: number, index: number, text: string, extra = {}) =>
  submitParams(source, {
    short_message: Buffer.alloc(0),
    message_payload: Buffer.from(text),
    sar_msg_ref_num: ref,
    sar_total_segments: count,
    sar_segment_seqnum: index,
    ...extra,
  });

/** Submits all, `width` at a time, and answers the responses in order. */
async function submitAll(e: TestEsme, params: Record<string, unknown>[], width = 200): Promise<PDU[]> {
  const out: PDU[] = [];
  for (let i = 0; i < params.length; i += width)
    out.push(...(await Promise.all(params.slice(i, i + width).map((p) => e.submit(p)))));
  return out;
}

async function messageText(smppd: SmppSuite, a: TestAccount, id: string): Promise<string> {
  const res = await call(smppd.svc.api, 'GET', `/v1/accounts/${a.accountId}/messages/${id}`, {
    auth: a.auth,
  });
  assert.equal(res.statusCode, 200, res.body);
  const m = body(res).data;
  return m.message ?? m.body;
}

describe("SMPP server: pending parts of one tenant never evict another tenant's", () => {
  // Budgets large enough that B's flood is all kept: what is tested is that nothing is evicted.
  const smppd = smppSuite({
    window: 1000,
    partsBudget: { perBind: 256 << 20, perCredential: 256 << 20, total: 256 << 20 },
  });

  it("keeps A's first part while B sends 10,001 first parts; A's message is created when its second part comes", async () => {
    const a = await smppd.svc.newAccount();
    const b = await smppd.svc.newAccount();
    const [ca, cb] = [await smppd.issue(a), await smppd.issue(b, { throughput: 100_000 })];
    const [na, nb] = [await smppd.numberOf(a), await smppd.numberOf(b)];
    const ea = await smppd.bound('transmitter', ca);
    const eb = await smppd.bound('transmitter', cb);
    const first = await ea.submit(sar(na, 7, 2, 1, 'Part one of A, '));
    assert.equal(first.command_status, STATUS.ROK);
    const flood = Array.from({ length: 10_001 }, (_, i) =>
      sar(nb, i % 65536, 2, 1, `b${i}`, {
        destination_addr: `1201555${String(i % 10_000).padStart(4, '0')}`,
      }),
    );
    const answers = await submitAll(eb, flood);
    assert.ok(
      answers.every((r) => r.command_status === STATUS.ROK),
      "each of B's parts is kept",
    );
    assert.equal(smppd.server.parts.size, 10_002);
    const second = await ea.submit(sar(na, 7, 2, 2, 'part two of A.'));
    assert.equal(second.command_status, STATUS.ROK);
    assert.equal(await messageText(smppd, a, String(second.message_id)), 'Part one of A, part two of A.');
  });
});

describe('SMPP server: budgets of pending parts', () => {
  const smppd = smppSuite({
    window: 1000,
    partsBudget: { perBind: 16 * 1024, perCredential: 24 * 1024, total: 40 * 1024 },
  });

  it("refuses parts past the bind's budget with ESME_RMSGQFUL, and every part answered ESME_ROK completes its message", async () => {
    const a = await smppd.svc.newAccount();
    const c = await smppd.issue(a, { throughput: 100_000 });
    const n = await smppd.numberOf(a);
    const e = await smppd.bound('transmitter', c);
    const firsts = await submitAll(
      e,
      Array.from({ length: 100 }, (_, i) => sar(n, 100 + i, 2, 1, `First ${i} `.padEnd(150, '.'))),
    );
    const kept = firsts.flatMap((r, i) => (r.command_status === STATUS.ROK ? [i] : []));
    const refused = firsts.filter((r) => r.command_status === STATUS.RMSGQFUL);
    assert.ok(kept.length > 0 && refused.length > 0, `kept ${kept.length}, refused ${refused.length}`);
    assert.equal(kept.length + refused.length, 100, 'every part is kept or refused ESME_RMSGQFUL');
    assert.ok(smppd.server.parts.bytes <= 16 * 1024);
    // Each kept message completes (its last part is taken even with the budget spent).
    const seconds = await submitAll(
      e,
      kept.map((i) => sar(n, 100 + i, 2, 2, 'end.')),
    );
    assert.deepEqual(
      seconds.map((r) => r.command_status),
      kept.map(() => STATUS.ROK),
    );
    for (const [j, i] of kept.entries())
      assert.equal(
        await messageText(smppd, a, String(seconds[j].message_id)),
        `${`First ${i} `.padEnd(150, '.')}end.`,
      );
    assert.equal(smppd.server.parts.bytes, 0, 'nothing is held once the messages are complete');
  });

  it('holds a credential within its budget across binds, and the server within its total across credentials', async () => {
    const a = await smppd.svc.newAccount();
    const n = await smppd.numberOf(a);
    const creds: Credential[] = [];
    for (let i = 0; i < 3; i++) creds.push(await smppd.issue(a, { throughput: 100_000 }));
    let ref = 1000;
    const fill = async (e: TestEsme) =>
      submitAll(
        e,
        Array.from({ length: 60 }, () => sar(n, ref++, 3, 1, 'x'.repeat(150))),
      );
    for (const c of creds) for (let b = 0; b < 2; b++) await fill(await smppd.bound('transmitter', c));
    assert.ok(smppd.server.parts.bytes <= 40 * 1024, `total ${smppd.server.parts.bytes}`);
    for (const c of creds)
      assert.ok(smppd.server.parts.bytesOfCredential(c.id) <= 24 * 1024, 'per credential');
    // Full: another tenant's first part is refused (with the status), not kept by evicting anything.
    const before = smppd.server.parts.size;
    const other = await smppd.svc.newAccount();
    const eo = await smppd.bound('transmitter', await smppd.issue(other));
    const r = await eo.submit(sar(await smppd.numberOf(other), 1, 2, 1, 'y'.repeat(150)));
    assert.equal(r.command_status, STATUS.RMSGQFUL);
    assert.equal(smppd.server.parts.size, before);
  });
});

describe('SMPP server: a flood of big first parts', () => {
  const smppd = smppSuite({ window: 1000 });

  it('refuses 255-part first parts with 16,000-byte payloads (ESME_RINVMSGLEN) and holds nothing', async () => {
    const a = await smppd.svc.newAccount();
    const c = await smppd.issue(a, { throughput: 100_000 });
    const n = await smppd.numberOf(a);
    const e = await smppd.bound('transmitter', c);
    const big = 'z'.repeat(16_000);
    const answers = await submitAll(
      e,
      Array.from({ length: 2_000 }, (_, i) => sar(n, i, 255, 1, big)),
      100,
    );
    assert.deepEqual(new Set(answers.map((r) => r.command_status)), new Set([STATUS.RINVMSGLEN]));
    assert.equal(smppd.server.parts.size, 0);
    assert.equal(smppd.server.parts.bytes, 0);
    // A declared count Sparrow could never send (33 parts) is refused at its first part too.
    assert.equal((await e.submit(sar(n, 9, 33, 1, 'short'))).command_status, STATUS.RINVMSGLEN);
  });

  it('holds 1,600-character first parts of one tenant within its credential budget (4 MiB by default)', async () => {
    const a = await smppd.svc.newAccount();
    const c = await smppd.issue(a, { throughput: 100_000 });
    const n = await smppd.numberOf(a);
    const binds = [];
    for (let i = 0; i < 6; i++) binds.push(await smppd.bound('transmitter', c));
    const longest = 'w'.repeat(1600);
    let ref = 0;
    const statuses = new Map<number, number>();
    for (const e of binds) {
      const answers = await submitAll(
        e,
        Array.from({ length: 500 }, () => sar(n, ref++ % 65536, 2, 1, longest)),
      );
      for (const r of answers) statuses.set(r.command_status, (statuses.get(r.command_status) ?? 0) + 1);
    }
    assert.ok((statuses.get(STATUS.RMSGQFUL) ?? 0) > 0, `statuses ${[...statuses]}`);
    assert.equal((statuses.get(STATUS.ROK) ?? 0) + (statuses.get(STATUS.RMSGQFUL) ?? 0), 3000);
    const { perBind, perCredential } = smppd.server.parts.budget;
    assert.ok(smppd.server.parts.bytesOfCredential(c.id) <= perCredential);
    for (const s of smppd.server.boundSessions) assert.ok(smppd.server.parts.bytesOfBind(s) <= perBind);
    assert.ok(smppd.server.parts.bytes <= perCredential);
  });
});

describe('SMPP server: parts that expire unassembled', () => {
  const smppd = smppSuite({ partsTtlMs: 300, pollMs: 20 });

  it('sends a receipt stat:EXPIRED for each part id when a receipt was asked for', async () => {
    assert.equal(PARTS_TTL_MS, 5 * 60_000, 'five minutes outside this test');
    const a = await smppd.svc.newAccount();
    const c = await smppd.issue(a);
    const n = await smppd.numberOf(a);
    const e = await smppd.bound('transceiver', c);
    const first = await e.submit(sar(n, 5, 3, 1, 'One, ', { registered_delivery: 1 }));
    const again = await e.submit(sar(n, 5, 3, 2, 'two, ', { registered_delivery: 1 }));
    assert.equal(first.command_status, STATUS.ROK);
    assert.equal(again.command_status, STATUS.ROK);
    for (const id of [first.message_id, again.message_id]) {
      const pdu = await eventually(async () => e.delivered.find((p) => p.receipted_message_id === id), 5000);
      assert.match(receiptText(pdu), new RegExp(`^id:${id} .*stat:EXPIRED err:012 text:One, `));
      assert.equal(pdu.message_state, 3);
    }
    assert.equal(smppd.server.parts.size, 0);
    assert.equal(smppd.server.parts.bytes, 0);
  });
});
