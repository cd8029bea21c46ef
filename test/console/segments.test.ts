import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CONSOLE_ROOT } from '../../src/http/routes/console.ts';
import { renderTemplate } from '../../src/messaging/render.ts';
import {
  countSegments,
  GSM7_BASIC,
  GSM7_EXTENSION,
  SMART_ENCODING,
  smartEncode,
} from '../../src/messaging/segments.ts';

// The console's modules are plain browser ES modules; these have no DOM use, so Node runs them as they are.
const load = (file: string) => import(pathToFileURL(path.join(CONSOLE_ROOT, 'js', file)).href);

/** A deterministic pseudo-random generator, so a failure names a reproducible text. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the console’s segment counter', () => {
  it('gives the server’s encoding, units and segments at every boundary', async () => {
    const { countSegments: consoleCount } = await load('segments.js');
    const texts = [
      '',
      'Hello',
      'a'.repeat(160),
      'a'.repeat(161),
      'a'.repeat(306),
      'a'.repeat(307),
      '€'.repeat(80),
      `${'a'.repeat(159)}€`,
      `${'a'.repeat(159)}[`,
      'é'.repeat(160),
      'ç'.repeat(10),
      'Ç'.repeat(10),
      '😀',
      `${'b'.repeat(69)}😀`,
      'ж'.repeat(70),
      'ж'.repeat(71),
      'ж'.repeat(134),
      'ж'.repeat(135),
      'Line one\nLine two\r\n',
      '\u001b',
      '{{{firstName}}} is here',
      'It’s “quoted” — with smart punctuation…',
    ];
    const rand = rng(42);
    const pool = `${GSM7_BASIC}${GSM7_EXTENSION}ж😀’é`;
    const chars = [...pool];
    for (let i = 0; i < 300; i++) {
      const len = Math.floor(rand() * 400);
      let t = '';
      // Mostly GSM-7 text with the odd character outside it.
      for (let j = 0; j < len; j++)
        t +=
          rand() < 0.02
            ? chars[chars.length - 1 - Math.floor(rand() * 4)]
            : chars[Math.floor(rand() * (chars.length - 4))];
      texts.push(t);
    }
    for (const t of texts) assert.deepEqual(consoleCount(t), countSegments(t), JSON.stringify(t));
  });

  it('renders merge fields as the server does (for the preview)', async () => {
    const { renderTemplate: consoleRender } = await load('render.js');
    const template =
      'Hi {{{firstName}}} {{{ lastName }}}, {{{contact.email}}} {{{mobile}}} {{{country}}} {{{plan}}} ' +
      '{{{attributes.plan}}} {{{contact.attributes.n}}} {{{missing}}} {{{obj}}} {{{id}}}';
    const contact = {
      id: 'c1',
      firstName: 'Ann',
      lastName: null,
      email: 'ann@example.com',
      mobile: { number: '+14155550123', country: 'US' },
      attributes: { plan: 'gold', n: 3, obj: { a: 1 } },
    };
    const server = renderTemplate(template, {
      id: 'c1',
      firstName: 'Ann',
      lastName: null,
      email: 'ann@example.com',
      mobile: '+14155550123',
      country: 'US',
      attributes: contact.attributes,
    });
    assert.equal(consoleRender(template, contact), server);
  });
});

describe('the console’s smart encoding', () => {
  it('gives the server’s text for every character of the table and for mixed texts', async () => {
    const { smartEncode: consoleEncode, describeSegments } = await load('segments.js');
    const keys = Object.keys(SMART_ENCODING);
    const texts = [
      ...keys.map((k) => `a${k}b`),
      keys.join(''),
      GSM7_BASIC,
      GSM7_EXTENSION,
      'It’s “quoted” — with smart punctuation…',
    ];
    const rand = rng(7);
    const chars = [...`${GSM7_BASIC}${keys.join('')}ж😀é`];
    for (let i = 0; i < 200; i++) {
      let t = '';
      for (let j = Math.floor(rand() * 200); j > 0; j--) t += chars[Math.floor(rand() * chars.length)];
      texts.push(t);
    }
    for (const t of texts) assert.equal(consoleEncode(t), smartEncode(t), JSON.stringify(t));
    // The counter counts the encoded text when smart encoding is on.
    const typed = `It’s “quoted” — ${'x'.repeat(60)}`;
    assert.equal(describeSegments(typed), '76 / 134 UCS-2 units · UCS-2 · 2 segments');
    assert.equal(describeSegments(typed, true), '76 / 160 characters · GSM-7 · 1 segment');
  });
});
