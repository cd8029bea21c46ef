import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMobile } from '../../src/messaging/phone.ts';

describe('parseMobile', () => {
  it('parses an E.164 number without a country', () => {
    assert.deepEqual(parseMobile('+61412345678'), {
      number: '+61412345678',
      country: 'AU',
      valid: true,
      lineType: 'mobile',
    });
  });

  it('reads a national number in the given country', () => {
    assert.deepEqual(parseMobile('07400 123456', 'GB'), {
      number: '+447400123456',
      country: 'GB',
      valid: true,
      lineType: 'mobile',
    });
  });

  it('accepts a lower-case country', () => {
    assert.equal(parseMobile('(201) 555-0123', 'us')?.number, '+12015550123');
  });

  it("names a US number's line type fixedOrMobile", () => {
    assert.equal(parseMobile('+12015550123')?.lineType, 'fixedOrMobile');
  });

  it('names a fixed line landline and a toll-free number tollFree', () => {
    assert.equal(parseMobile('+442079460000')?.lineType, 'landline');
    assert.equal(parseMobile('+18005550199')?.lineType, 'tollFree');
  });

  it('answers undefined for a national number without a country', () => {
    assert.equal(parseMobile('2015550123'), undefined);
  });

  it('answers undefined for text that is not a number', () => {
    assert.equal(parseMobile('not a phone', 'US'), undefined);
    assert.equal(parseMobile('', 'US'), undefined);
  });

  it('answers undefined for a number that is not valid', () => {
    assert.equal(parseMobile('+1555'), undefined);
    assert.equal(parseMobile('+447700900123'), undefined);
  });

  it('answers undefined for an unknown country instead of throwing', () => {
    assert.equal(parseMobile('2015550123', 'XX'), undefined);
  });

  it('keeps the number when the country disagrees with an E.164 number', () => {
    assert.equal(parseMobile('+12015550123', 'GB')?.country, 'US');
  });
});
