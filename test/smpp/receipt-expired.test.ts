import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SmppOutboxItem } from '../../src/db/queries/smpp.ts';
import { receiptParams, receiptText } from '../../src/smpp/receipt.ts';

const item = (status: string, error: SmppOutboxItem['error']): SmppOutboxItem => ({
  account_id: '01a20cb9-0000-7000-8000-000000000001',
  id: '01a20cb9-0000-7000-8000-000000000002',
  kind: 'receipt',
  credential_id: null,
  status,
  error,
  smpp_ids: ['abc'],
  from_number: '+12125550100',
  to_number: '+12015550123',
  body: 'Hello',
  message_created_at: new Date('2026-11-24T09:00:00Z'),
});

describe('SMPP receipts of expired messages', () => {
  it('reports a message whose validity ended as EXPIRED (message_state 3), other failures as REJECTD', () => {
    const expired = item('failed', { code: 'MSG-012', description: 'expired' });
    assert.match(receiptText(expired, 'abc'), / stat:EXPIRED err:012 /);
    assert.equal(receiptParams(expired, 'abc').message_state, 3);
    const refused = item('failed', { code: 'CONT-010', description: 'opted out' });
    assert.match(receiptText(refused, 'abc'), / stat:REJECTD /);
    assert.equal(receiptParams(refused, 'abc').message_state, 8);
  });
});
