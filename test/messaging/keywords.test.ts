import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyKeyword, keywordOf } from '../../src/messaging/keywords.ts';

describe('classifyKeyword', () => {
  it('classifies every opt-out keyword, in any case', () => {
    for (const w of ['STOP', 'stop', 'Stop', 'STOPALL', 'unsubscribe', 'Cancel', 'END', 'quit']) {
      assert.equal(classifyKeyword(w), 'opt-out', w);
    }
  });

  it('classifies the opt-in and help keywords', () => {
    for (const w of ['START', 'yes', 'Unstop']) assert.equal(classifyKeyword(w), 'opt-in', w);
    for (const w of ['HELP', 'info']) assert.equal(classifyKeyword(w), 'help', w);
  });

  it('ignores surrounding whitespace and punctuation', () => {
    for (const w of [' Stop ', '\tSTOP\n', 'Stop.', 'STOP!', '"stop"', '¡stop!', 'stop 🛑', '  help?  ']) {
      assert.notEqual(classifyKeyword(w), undefined, JSON.stringify(w));
    }
    assert.equal(keywordOf(' Stop. '), 'STOP');
  });

  it('folds full-width letters', () => {
    assert.equal(classifyKeyword('ＳＴＯＰ'), 'opt-out');
  });

  it('treats anything more than the single word as an ordinary message', () => {
    for (const w of [
      'STOP PLEASE',
      'please stop',
      'stop it',
      'ST.OP',
      'stopp',
      'yes please',
      'help me',
      '',
      '   ',
      '.',
    ]) {
      assert.equal(classifyKeyword(w), undefined, JSON.stringify(w));
    }
  });
});
