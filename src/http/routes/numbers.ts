import { isAssigned } from '../../db/queries/number-assignments.ts';
import { getPhoneNumber } from '../../domain/numbers/get-phone-number.ts';
import { listPhoneNumbers } from '../../domain/numbers/list-phone-numbers.ts';
import { releasePhoneNumber } from '../../domain/numbers/release-phone-number.ts';
import { reverifyPhoneNumber } from '../../domain/numbers/reverify-phone-number.ts';
import { presentAvailable, searchAvailableNumbers } from '../../domain/numbers/search-available-numbers.ts';
import { takePhoneNumber } from '../../domain/numbers/take-phone-number.ts';
import { updatePhoneNumber } from '../../domain/numbers/update-phone-number.ts';
import { checkNumberProvider, providerVerifier } from '../../domain/numbers/verify-with-provider.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import { MAX_DAILY_CAP } from '../../schemas/limits.ts';
import {
  AvailableNumber,
  AvailableNumbersQuery,
  PhoneNumber,
  PhoneNumbersQuery,
  TakeNumberBody,
  UpdateNumberBody,
  type WithDailyCap,
} from '../../schemas/numbers.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

export async function numberRoutes(app: App) {
  const verifier = providerVerifier(
    app.ctx.config.twilio,
    app.ctx.config.providers,
    (provider, number, accountId) => isAssigned(app.ctx.db, { provider, number, accountId }),
  );
  app.get(
    '/v1/accounts/:accountId/availablephonenumbers',
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Search numbers available to take',
        description:
          'Answered from the provider inventory (the simulator has a deterministic one), without numbers any account holds.',
        params: IdParam('accountId'),
        querystring: AvailableNumbersQuery,
        response: { 200: Collection(AvailableNumber), ...errorResponses() },
      },
    },
    async (req) => {
      const q = req.query;
      const result = await searchAvailableNumbers(app.ctx.db, {
        ...q,
        features: q.features?.split(',').map((f) => f.trim()),
      });
      return page(result, presentAvailable);
    },
  );

  app.post(
    '/v1/accounts/:accountId/phonenumbers',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Take a phone number',
        description:
          'provider `simulator` (default): a free number of the inventory. `twilio`, `smpp` or an instance of PROVIDERS ' +
          '(docs/routing.md): a valid E.164 number the account brings from that carrier; a name this service does not ' +
          'know → 400 VAL-001. The number joins `groupId`, or the default group. A number of a Twilio-compatible ' +
          'instance is `verified` only when that account lists it (IncomingPhoneNumbers); an unverified number ' +
          'cannot send (NUM-010) until `POST …/phonenumbers/{id}/verify` confirms it. A number on an SMPP carrier ' +
          'must have been assigned to this account there by the operator (`sparrow numbers assign`), else 403 NUM-011. ' +
          '`dailyCap`: at most so many messages a day from the number (the account’s day, in its time zone; past it ' +
          'they wait for the next day, still queued; absent or null: no cap).',
        params: IdParam('accountId'),
        body: TakeNumberBody,
        response: { 201: Envelope(PhoneNumber), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      reply.code(201);
      if (req.body.provider !== undefined) checkNumberProvider(app.ctx.config, req.body.provider);
      const body = req.body as WithDailyCap<typeof req.body>;
      return ok(await takePhoneNumber(app.ctx.db, req.params.accountId, body, req.actor, verifier));
    },
  );

  app.post(
    '/v1/accounts/:accountId/phonenumbers/:phoneNumberId/verify',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Verify a phone number with its provider again',
        description:
          'Asks the provider whether the number is the account’s (Twilio: IncomingPhoneNumbers) and records the ' +
          'answer in `verified`; only a verified number sends.',
        params: IdParam('accountId', 'phoneNumberId'),
        response: { 200: Envelope(PhoneNumber), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await reverifyPhoneNumber(
          app.ctx.db,
          req.params.accountId,
          req.params.phoneNumberId,
          req.actor,
          verifier,
        ),
      ),
  );

  app.get(
    '/v1/accounts/:accountId/phonenumbers',
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags: ['phone numbers'],
        summary: 'List the account’s phone numbers',
        params: IdParam('accountId'),
        querystring: PhoneNumbersQuery,
        response: { 200: Collection(PhoneNumber), ...errorResponses() },
      },
    },
    async (req) => page(await listPhoneNumbers(app.ctx.db, req.params.accountId, req.query), (n) => n),
  );

  app.get(
    '/v1/accounts/:accountId/phonenumbers/:phoneNumberId',
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Get a phone number',
        params: IdParam('accountId', 'phoneNumberId'),
        response: { 200: Envelope(PhoneNumber), ...errorResponses() },
      },
    },
    async (req) => ok(await getPhoneNumber(app.ctx.db, req.params.accountId, req.params.phoneNumberId)),
  );

  app.put(
    '/v1/accounts/:accountId/phonenumbers/:phoneNumberId',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Update a phone number',
        description:
          '`channels` is merged into the number’s channels; `throughput` is messages per second (1..10000); a new ' +
          '`provider` (one this service knows, else 400 VAL-001) verifies the number with it again; an SMPP carrier ' +
          'where the operator did not assign the number to this account: 403 NUM-011. `dailyCap` caps the messages a ' +
          `day from the number (1..${MAX_DAILY_CAP}; null removes the cap): past it they stay queued for the next day.`,
        params: IdParam('accountId', 'phoneNumberId'),
        body: UpdateNumberBody,
        response: { 200: Envelope(PhoneNumber), ...errorResponses() },
      },
    },
    async (req) => {
      if (req.body.provider !== undefined) checkNumberProvider(app.ctx.config, req.body.provider);
      return ok(
        await updatePhoneNumber(
          app.ctx.db,
          req.params.accountId,
          req.params.phoneNumberId,
          req.body as WithDailyCap<typeof req.body>,
          req.actor,
          verifier,
        ),
      );
    },
  );

  app.delete(
    '/v1/accounts/:accountId/phonenumbers/:phoneNumberId',
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags: ['phone numbers'],
        summary: 'Release a phone number',
        description:
          'The number leaves its groups and becomes available again; the record stays with status `released`. ' +
          '409 NUM-003 while messages from it wait to be sent.',
        params: IdParam('accountId', 'phoneNumberId'),
        response: { 200: Success, ...errorResponses(409) },
      },
    },
    async (req) => {
      await releasePhoneNumber(app.ctx.db, req.params.accountId, req.params.phoneNumberId, req.actor);
      return { success: true as const };
    },
  );
}
