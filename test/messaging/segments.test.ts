import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  countSegments,
  GSM7_BASIC,
  GSM7_EXTENSION,
  SMART_ENCODING,
  smartEncode,
} from '../../src/messaging/segments.ts';
import { startTestService, type TestService } from '../helpers.ts';

const plain = (n: number) => 'a'.repeat(n);
const EMOJI = '\u{1F600}';

describe('countSegments', () => {
  it('counts `{` + 158 plain characters as one GSM-7 segment (the brace is two septets)', () => {
    assert.deepEqual(countSegments(`{${plain(158)}`), { encoding: 'GSM-7', segments: 1, units: 160 });
  });

  it('counts `{` + 159 plain characters as two GSM-7 segments', () => {
    assert.deepEqual(countSegments(`{${plain(159)}`), { encoding: 'GSM-7', segments: 2, units: 161 });
  });

  it('counts 160 plain characters as one segment and 161 as two', () => {
    assert.equal(countSegments(plain(160)).segments, 1);
    assert.equal(countSegments(plain(161)).segments, 2);
  });

  it('counts 307 plain characters as three segments of 153', () => {
    assert.deepEqual(countSegments(plain(307)), { encoding: 'GSM-7', segments: 3, units: 307 });
    assert.equal(countSegments(plain(306)).segments, 2);
  });

  it('counts an emoji + 68 characters as one UCS-2 segment (the emoji is two units)', () => {
    assert.deepEqual(countSegments(`${EMOJI}${plain(68)}`), { encoding: 'UCS-2', segments: 1, units: 70 });
  });

  it('counts an emoji + 69 characters as two UCS-2 segments', () => {
    assert.deepEqual(countSegments(`${EMOJI}${plain(69)}`), { encoding: 'UCS-2', segments: 2, units: 71 });
  });

  it('splits UCS-2 in parts of 67 units', () => {
    assert.equal(countSegments(`é€ü${'ж'.repeat(131)}`).segments, 2);
    assert.equal(countSegments('ж'.repeat(134)).segments, 2);
    assert.equal(countSegments('ж'.repeat(135)).segments, 3);
  });

  it('counts the empty text as one segment', () => {
    assert.deepEqual(countSegments(''), { encoding: 'GSM-7', segments: 1, units: 0 });
  });

  it('counts every extension character as two septets', () => {
    for (const ch of GSM7_EXTENSION) assert.equal(countSegments(ch).units, 2, JSON.stringify(ch));
  });

  it('keeps accented GSM-7 letters in GSM-7 and switches to UCS-2 for others', () => {
    assert.equal(countSegments('Ça coûte 5€').encoding, 'UCS-2'); // û is not in GSM-7
    assert.equal(countSegments('Ça va? 5€ à Zürich').encoding, 'GSM-7');
  });
});

describe('sparrow_segments (SQL mirror of countSegments)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function sql(texts: string[]) {
    const { rows } = await svc.db.query(
      `SELECT t, sparrow_encoding(t) AS encoding, sparrow_units(t) AS units, sparrow_segments(t) AS segments
       FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`,
      [texts],
    );
    return rows as { encoding: string; units: number; segments: number }[];
  }

  it('agrees with TypeScript on the standard vectors', async () => {
    const texts = [
      '',
      `{${plain(158)}`,
      `{${plain(159)}`,
      plain(307),
      `${EMOJI}${plain(68)}`,
      `${EMOJI}${plain(69)}`,
      GSM7_BASIC,
      GSM7_EXTENSION,
    ];
    const rows = await sql(texts);
    texts.forEach((t, i) => {
      const { encoding, units, segments } = rows[i];
      assert.deepEqual({ encoding, units, segments }, countSegments(t), JSON.stringify(t.slice(0, 30)));
    });
  });

  it('agrees with TypeScript on 500 random strings', async () => {
    // Deterministic pseudo-random texts drawn from GSM-7, the extension table, BMP and astral characters.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pools = [
      [...GSM7_BASIC],
      [...GSM7_EXTENSION],
      ['é', 'ж', 'ü', '漢', '\u00A0', 'ç', 'Ω', 'Σ'],
      [EMOJI, '\u{1F44D}', '\u{10348}'],
    ];
    const texts = Array.from({ length: 500 }, () => {
      const len = rand(400);
      const mix = rand(4);
      let s = '';
      for (let i = 0; i < len; i++) {
        const pool = pools[rand(10) < 8 ? 0 : Math.min(mix, 1 + rand(3))];
        s += pool[rand(pool.length)];
      }
      return s;
    });
    const rows = await sql(texts);
    texts.forEach((t, i) => {
      const { encoding, units, segments } = rows[i];
      assert.deepEqual({ encoding, units, segments }, countSegments(t), JSON.stringify(t.slice(0, 40)));
    });
  });
});

describe('sparrow_smart_encode (SQL mirror of smartEncode)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const sql = async (texts: string[]) => {
    const { rows } = await svc.db.query(
      'SELECT sparrow_smart_encode(t) AS t FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i',
      [texts],
    );
    return rows.map((r) => r.t as string);
  };

  it('maps every character of the table as TypeScript does, and nothing else', async () => {
    const texts = [
      // Each entry alone, between plain letters (a removed character must not take its neighbours).
      ...Object.keys(SMART_ENCODING).map((ch) => `a${ch}b`),
      // Every entry at once, then every GSM-7 character (none of them changes).
      Object.keys(SMART_ENCODING).join(''),
      GSM7_BASIC,
      GSM7_EXTENSION,
      // Characters that are not in the table stay (UCS-2 they remain).
      '\u201Chello\u201D \u2014 it\u2019s\u2026 \u00E9t\u00E9 \u{1F600} \u2010\u00B4',
      '',
    ];
    const rows = await sql(texts);
    for (const [i, t] of texts.entries()) assert.equal(rows[i], smartEncode(t), JSON.stringify(t));
  });

  it('agrees with TypeScript on 300 random strings mixing look-alikes, GSM-7 and others', async () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pools = [[...GSM7_BASIC], Object.keys(SMART_ENCODING), ['é', 'ж', '漢', EMOJI, '\u2010', '\u00B4']];
    const texts = Array.from({ length: 300 }, () => {
      let s = '';
      for (let i = rand(200); i > 0; i--) {
        const pool = pools[rand(3)];
        s += pool[rand(pool.length)];
      }
      return s;
    });
    const rows = await sql(texts);
    for (const [i, t] of texts.entries())
      assert.equal(rows[i], smartEncode(t), JSON.stringify(t.slice(0, 40)));
  });
});
