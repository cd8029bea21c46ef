import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { twilioSignature } from '../../src/providers/twilio/webhooks.ts';
import { newId } from '../../src/util/ids.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const TWILIO_TOKEN = 'test-twilio-voice-token';

describe('Twilio voice webhooks', () => {
  let svc: TestService;
  let a: TestAccount;
  let ours: { id: string; number: string };
  let seq = 10;
  const caller = () => `+120155502${String(seq++).padStart(2, '0')}`;
  const sid = () => `CA${newId().replaceAll('-', '')}`;

  /** Posts a form to a voice callback, signed with the account's auth token unless told otherwise. */
  const post = (path: string, params: Record<string, string>, token: string | null = TWILIO_TOKEN) =>
    call(svc.externals, 'POST', path, {
      payload: new URLSearchParams(params).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(token === null
          ? {}
          : { 'x-twilio-signature': twilioSignature(token, `${svc.config.externalsUrl}${path}`, params) }),
      },
    });
  const incoming = (p: { sid: string; from: string; to?: string }) =>
    post('/v1/providers/twilio/voice', {
      CallSid: p.sid,
      AccountSid: 'AC123',
      From: p.from,
      To: p.to ?? ours.number,
      CallStatus: 'ringing',
      Direction: 'inbound',
    });
  const status = (callSid: string, s: string, extra: Record<string, string> = {}) =>
    post('/v1/providers/twilio/voice/status', {
      CallSid: callSid,
      AccountSid: 'AC123',
      From: '+12015550100',
      To: ours.number,
      CallStatus: s,
      ...extra,
    });
  const stored = async (callSid: string) => {
    const { rows } = await svc.db.query(
      'SELECT id FROM calls WHERE account_id = $1 AND provider_call_id = $2',
      [a.accountId, callSid],
    );
    if (!rows[0]) return undefined;
    return body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/calls/${rows[0].id}`, { auth: a.auth }),
    ).data;
  };
  const setVoice = async (voice: object) => {
    const res = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/phonenumbers/${ours.id}`, {
      auth: a.auth,
      json: { channels: { voice } },
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  before(async () => {
    svc = await startTestService({
      rateLimitPerMinute: 1_000_000,
      twilio: { ...loadConfig().twilio, authToken: TWILIO_TOKEN },
    });
    a = await svc.newAccount();
    ours = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }))
      .data[0];
    // A test reads the caller's contact-created event, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
    // Twilio's callbacks are accepted only for a number Twilio serves.
    await svc.db.query(`UPDATE phone_numbers SET provider = 'twilio' WHERE id = $1`, [ours.id]);
  });
  after(() => svc.close());

  describe('POST /v1/providers/twilio/voice', () => {
    it('answers voicemail TwiML (Say the message, then Record with transcribe) and stores the call', async () => {
      await setVoice({
        active: true,
        incoming: { message: 'Hi, we are out <now> & back soon', transcribe: true },
      });
      const s = sid();
      const from = caller();
      const res = await incoming({ sid: s, from });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/xml/);
      assert.match(res.body, /<Say>Hi, we are out &lt;now&gt; &amp; back soon<\/Say>/);
      assert.match(res.body, /<Record [^>]*transcribe="true"/);
      assert.ok(res.body.includes(`action="${svc.config.externalsUrl}/v1/providers/twilio/voice/recording"`));
      assert.doesNotMatch(res.body, /<Dial|<Reject/);
      const c = await stored(s);
      assert.equal(c.status, 'initiated');
      assert.equal(c.action, 'voicemail');
      assert.equal(c.contact.mobile.number, from);
      const { rows } = await svc.db.query(
        `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'contact-created' AND data->>'id' = $2`,
        [a.accountId, c.contact.id],
      );
      assert.equal(rows[0].n, 1);
    });

    it('answers Reject TwiML when voice is inactive', async () => {
      await setVoice({ active: false });
      const s = sid();
      const res = await incoming({ sid: s, from: caller() });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /<Reject reason="busy"\/>/);
      assert.equal((await stored(s)).action, 'reject');
      await setVoice({ active: true });
    });

    it('stores a retried CallSid once', async () => {
      const s = sid();
      const from = caller();
      assert.equal((await incoming({ sid: s, from })).statusCode, 200);
      assert.equal((await incoming({ sid: s, from })).statusCode, 200);
      const { rows } = await svc.db.query(
        'SELECT count(*)::int AS n FROM calls WHERE provider_call_id = $1',
        [s],
      );
      assert.equal(rows[0].n, 1);
    });

    it('refuses a bad, missing or tampered signature with 403 PROV-001 and stores nothing', async () => {
      const s = sid();
      const params = { CallSid: s, From: caller(), To: ours.number, CallStatus: 'ringing' };
      const wrong = await post('/v1/providers/twilio/voice', params, 'another-token');
      assert.equal(wrong.statusCode, 403);
      assert.equal(body(wrong).error.code, 'PROV-001');
      assert.equal((await post('/v1/providers/twilio/voice', params, null)).statusCode, 403);
      const signature = twilioSignature(
        TWILIO_TOKEN,
        `${svc.config.externalsUrl}/v1/providers/twilio/voice`,
        params,
      );
      const tampered = await call(svc.externals, 'POST', '/v1/providers/twilio/voice', {
        payload: new URLSearchParams({ ...params, From: '+12015550177' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });
      assert.equal(tampered.statusCode, 403);
      assert.equal(await stored(s), undefined);
    });

    it('answers 400 for a signed callback without CallSid and 404 PROV-002 for a number nobody holds', async () => {
      const missing = await post('/v1/providers/twilio/voice', { From: caller(), To: ours.number });
      assert.equal(missing.statusCode, 400);
      assert.equal(body(missing).error.code, 'VAL-001');
      const nobody = await incoming({ sid: sid(), from: caller(), to: '+12125550999' });
      assert.equal(nobody.statusCode, 404);
      assert.equal(body(nobody).error.code, 'PROV-002');
    });

    it('keeps a withheld caller id as the call’s from, without a contact', async () => {
      const s = sid();
      const res = await incoming({ sid: s, from: 'anonymous' });
      assert.equal(res.statusCode, 200, res.body);
      const c = await stored(s);
      assert.equal(c.from, 'anonymous');
      assert.equal(c.contact, undefined);
    });
  });

  describe('POST /v1/providers/twilio/voice/status', () => {
    it('moves the call forward, records the duration and never moves it backwards', async () => {
      const s = sid();
      await incoming({ sid: s, from: caller() });
      assert.equal((await status(s, 'ringing')).statusCode, 204);
      assert.equal((await stored(s)).status, 'ringing');
      assert.equal((await status(s, 'in-progress')).statusCode, 204);
      assert.equal((await status(s, 'ringing')).statusCode, 204);
      assert.equal((await stored(s)).status, 'in-progress', 'a late ringing does not move it back');
      assert.equal((await status(s, 'completed', { CallDuration: '37' })).statusCode, 204);
      assert.equal((await status(s, 'completed', { CallDuration: '37' })).statusCode, 204);
      assert.equal((await status(s, 'in-progress')).statusCode, 204);
      assert.equal((await status(s, 'failed')).statusCode, 204);
      const c = await stored(s);
      assert.equal(c.status, 'completed', 'a terminal status is final');
      assert.equal(c.duration, 37);
      assert.ok(c.ended);
    });

    it('applies a terminal status that arrives before the others', async () => {
      const s = sid();
      await incoming({ sid: s, from: caller() });
      await status(s, 'no-answer');
      await status(s, 'ringing');
      assert.equal((await stored(s)).status, 'no-answer');
    });

    it('refuses a bad signature with 403 and changes nothing', async () => {
      const s = sid();
      await incoming({ sid: s, from: caller() });
      const res = await post(
        '/v1/providers/twilio/voice/status',
        { CallSid: s, To: ours.number, CallStatus: 'completed' },
        'another-token',
      );
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'PROV-001');
      assert.equal((await stored(s)).status, 'initiated');
    });
  });

  describe('POST /v1/providers/twilio/voice/recording', () => {
    it('marks a voicemail call recorded with its URL and transcription, and hangs up', async () => {
      const s = sid();
      await incoming({ sid: s, from: caller() });
      const res = await post('/v1/providers/twilio/voice/recording', {
        CallSid: s,
        From: '+12015550100',
        To: ours.number,
        RecordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/AC123/Recordings/RE123',
        RecordingDuration: '12',
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /<Hangup\/>/);
      const transcribed = await post('/v1/providers/twilio/voice/recording', {
        CallSid: s,
        To: ours.number,
        TranscriptionText: 'Please call me back',
        TranscriptionStatus: 'completed',
      });
      assert.equal(transcribed.statusCode, 200);
      const c = await stored(s);
      assert.equal(c.voicemail, true);
      assert.equal(c.recording, true);
      assert.equal(c.recordingUrl, 'https://api.twilio.com/2010-04-01/Accounts/AC123/Recordings/RE123');
      assert.equal(c.recordingDuration, 12);
      assert.equal(c.transcription, 'Please call me back');
    });

    it('answers 404 CALL-001 for an unknown call and 403 for a bad signature', async () => {
      const unknown = await post('/v1/providers/twilio/voice/recording', { CallSid: sid(), To: ours.number });
      assert.equal(unknown.statusCode, 404);
      assert.equal(body(unknown).error.code, 'CALL-001');
      const bad = await post(
        '/v1/providers/twilio/voice/recording',
        { CallSid: sid(), To: ours.number },
        'x',
      );
      assert.equal(bad.statusCode, 403);
    });
  });

  // Last: a number's `incoming.action` cannot be cleared once set to forward.
  describe('POST /v1/providers/twilio/voice (forwarding number)', () => {
    it('answers Dial TwiML to forwardTo when the number forwards', async () => {
      await setVoice({ active: true, incoming: { action: 'forward', forwardTo: '+12025550188' } });
      const s = sid();
      const res = await incoming({ sid: s, from: caller() });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /<Response><Dial>\+12025550188<\/Dial><\/Response>/);
      assert.equal((await stored(s)).forwardedTo, '+12025550188');
    });
  });
});
