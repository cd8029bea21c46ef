import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  csvStream,
  EXPORTS_PER_ACCOUNT,
  keyset,
  safeCell,
  takeExportSlot,
} from '../../src/domain/exports/csv.ts';

describe('export CSV cells (OWASP CSV injection)', () => {
  it('prefixes with a quote the text a spreadsheet would run as a formula', () => {
    for (const v of ['=1+1', '+cmd|/c calc', '-2+3', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("x")', '+', '-'])
      assert.equal(safeCell(v), `'${v}`, JSON.stringify(v));
  });

  it('keeps plain numbers (a mobile, a negative amount), other text, numbers and nothing as they are', () => {
    for (const v of ['+12025550123', '-3.5', '42', 'Zoë', ' =not first', "'=already", ''])
      assert.equal(safeCell(v), v, JSON.stringify(v));
    assert.equal(safeCell(3), 3);
    assert.equal(safeCell(false), false);
    assert.equal(safeCell(null), '');
    assert.equal(safeCell(undefined), '');
    assert.equal(safeCell(new Date('2026-01-02T03:04:05Z')), '2026-01-02T03:04:05.000Z');
    assert.equal(safeCell({ a: '=x' }), '{"a":"=x"}');
    assert.equal(safeCell(['=x']), `'["=x"]`.replace(`'`, '') === '["=x"]' ? '["=x"]' : '');
  });
});

describe('csvStream', () => {
  it('pulls rows only as the reader takes the text, and gives the slot back once when abandoned', async () => {
    let produced = 0;
    async function* many() {
      for (let i = 0; i < 100_000; i++) {
        produced++;
        yield [i, `row ${i}`, '=x'];
      }
    }
    let closed = 0;
    const stream = csvStream(['n', 'text', 'f'], many(), () => closed++);
    let first = '';
    await new Promise<void>((resolve) => {
      const take = (c: Buffer) => {
        first += String(c);
        if (first.includes('row 0')) {
          stream.off('data', take);
          resolve();
        }
      };
      stream.on('data', take);
    });
    assert.ok(first.startsWith("\uFEFFn,text,f\r\n0,row 0,'=x\r\n"), first.slice(0, 40));
    stream.pause();
    await new Promise((r) => setTimeout(r, 50));
    // A reader that stops reading holds a few buffers' worth, not the 100,000 rows.
    assert.ok(produced < 5_000, `${produced} rows produced before they were read`);
    stream.destroy();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(closed, 1);
  });

  it('writes every row and closes once at the end', async () => {
    let closed = 0;
    const rows = keyset(
      async (after) => (after ? [] : [['x, "y"', '@z']]),
      (r) => r[0],
    );
    const stream = csvStream(['a', 'b'], rows, () => closed++);
    let text = '';
    for await (const c of stream) text += String(c);
    assert.equal(text, '\uFEFFa,b\r\n"x, ""y""",\'@z\r\n');
    assert.equal(closed, 1);
  });
});

describe('keyset', () => {
  it('reads batches of 1,000 after the last key until a short batch', async () => {
    const asked: (string | null)[] = [];
    const data = Array.from({ length: 2_500 }, (_, i) => String(i).padStart(5, '0'));
    const rows = keyset(
      async (after, limit) => {
        asked.push(after);
        return data.filter((d) => after === null || d > after).slice(0, limit);
      },
      (r) => r,
    );
    const got: string[] = [];
    for await (const r of rows) got.push(r);
    assert.deepEqual(got, data);
    assert.deepEqual(asked, [null, '00999', '01999']);
  });
});

describe('export slots', () => {
  it(`lets ${EXPORTS_PER_ACCOUNT} exports of an account run at once, each slot given back once`, () => {
    const slots = Array.from({ length: EXPORTS_PER_ACCOUNT }, () => takeExportSlot('acc-1'));
    assert.ok(slots.every(Boolean));
    assert.equal(takeExportSlot('acc-1'), undefined);
    // Another account is not held by this one.
    const other = takeExportSlot('acc-2');
    assert.ok(other);
    slots[0]?.();
    slots[0]?.();
    const again = takeExportSlot('acc-1');
    assert.ok(again);
    assert.equal(takeExportSlot('acc-1'), undefined);
    again?.();
    slots[1]?.();
    other?.();
  });
});
