import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keywordMatcher, matchKeyOf } from '../../src/messaging/keywords.ts';
import { withinOfficeHours } from '../../src/messaging/office-hours.ts';

const key = (k: string) => {
  const m = matchKeyOf(k);
  assert.ok('key' in m, `${k}: ${'error' in m ? m.error : ''}`);
  return m.key;
};
const matches = (text: string, ...keywords: string[]) => keywordMatcher(text)(keywords.map(key));

describe('autoresponder keywords', () => {
  it('match whole words in any case, with surrounding punctuation ignored', () => {
    assert.equal(matches('Hours?', 'hours'), true);
    assert.equal(matches('What are your HOURS today?', 'hours'), true);
    assert.equal(matches('hours', 'Hours?'), true);
    assert.equal(matches('shoursx', 'hours'), false);
    assert.equal(matches('hoursx', 'hours'), false);
    assert.equal(matches('', 'hours'), false);
  });

  it('match a phrase only as consecutive words', () => {
    assert.equal(matches('What are your opening   hours?', 'opening hours'), true);
    assert.equal(matches('opening, hours', 'opening hours'), true);
    assert.equal(matches('hours opening', 'opening hours'), false);
    assert.equal(matches('reopening hours', 'opening hours'), false);
  });

  it('fold compatibility forms and drop invisible format characters', () => {
    assert.equal(matches('ＨＯＵＲＳ', 'hours'), true);
    assert.equal(matches('ho\u200burs', 'hours'), true);
    assert.equal(key('ho\u202eurs'), 'HOURS');
  });

  it('match right-to-left scripts, combining marks included', () => {
    assert.equal(matches('ما هي ساعات العمل؟', 'ساعات'), true);
    assert.equal(matches('\u200fשָׁלוֹם\u200f!', 'שָׁלוֹם'), true);
    assert.equal(matches('ساعاتكم', 'ساعات'), false);
  });

  it('refuse keywords without letters, with punctuation inside, and compliance keywords', () => {
    for (const k of [
      '?',
      '  ',
      '🛑',
      'ST.OP',
      "don't",
      'a/b',
      'STOP',
      'stop!',
      'Help',
      'yes',
      'unsubscribe',
    ]) {
      assert.ok('error' in matchKeyOf(k), k);
    }
  });

  it('collapse whitespace between the words of a phrase', () => {
    assert.equal(key('  opening \t hours  '), 'OPENING HOURS');
  });
});

describe('withinOfficeHours', () => {
  const nineToFive = { start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } };
  const weekdays = {
    active: true,
    timezone: 'America/New_York',
    times: { mon: [nineToFive], tue: [nineToFive], wed: [nineToFive], thu: [nineToFive], fri: [nineToFive] },
  };
  const at = (iso: string) => Date.parse(iso);

  it('reads the time in the hours’ zone, across a DST change', () => {
    // Monday 2026-03-09 is the first weekday of EDT (UTC-4).
    assert.equal(withinOfficeHours(weekdays, at('2026-03-09T13:00:00Z')), true, '09:00 EDT');
    assert.equal(withinOfficeHours(weekdays, at('2026-03-09T12:59:00Z')), false, '08:59 EDT');
    // Friday 2026-03-06 is EST (UTC-5).
    assert.equal(withinOfficeHours(weekdays, at('2026-03-06T13:30:00Z')), false, '08:30 EST');
    assert.equal(withinOfficeHours(weekdays, at('2026-03-06T14:00:00Z')), true, '09:00 EST');
  });

  it('takes the start as open and the end as closed', () => {
    assert.equal(withinOfficeHours(weekdays, at('2026-03-09T20:59:00Z')), true, '16:59');
    assert.equal(withinOfficeHours(weekdays, at('2026-03-09T21:00:00Z')), false, '17:00');
  });

  it('uses the local weekday, not the UTC one', () => {
    // Saturday 01:00 UTC is Friday 20:00 in New York: closed for the hour, not for the day.
    assert.equal(withinOfficeHours(weekdays, at('2026-03-07T01:00:00Z')), false);
    const late = {
      ...weekdays,
      times: { fri: [{ start: { hour: 19, minute: 0 }, end: { hour: 23, minute: 0 } }] },
    };
    assert.equal(withinOfficeHours(late, at('2026-03-07T01:00:00Z')), true);
  });

  it('treats a day without ranges as closed', () => {
    assert.equal(withinOfficeHours(weekdays, at('2026-03-08T15:00:00Z')), false, 'Sunday 11:00');
  });

  it('answers undefined when no office hours are kept', () => {
    assert.equal(withinOfficeHours(null, Date.now()), undefined);
    assert.equal(withinOfficeHours({ ...weekdays, active: false }, Date.now()), undefined);
    assert.equal(withinOfficeHours({ ...weekdays, timezone: 'Mars/Base' }, Date.now()), undefined);
    assert.equal(withinOfficeHours(weekdays, Number.NaN), undefined);
  });
});
