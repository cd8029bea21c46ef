import { cancelJob } from '../../domain/jobs/cancel-job.ts';
import { getJob, requireJob } from '../../domain/jobs/get-job.ts';
import { listJobs } from '../../domain/jobs/list-jobs.ts';
import { LIST_ACTIONS, startContactJob } from '../../domain/jobs/start-contact-job.ts';
import { fail } from '../../errors.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import { BulkContactsBody, JobListQuery, JobResource } from '../../schemas/jobs.ts';
import { MAX_SELECTOR_IDS } from '../../schemas/limits.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const JOB_DESCRIPTION =
  'Every send (POST …/messages, quick campaigns, campaign runs: the `jobId` of the send answer) and every ' +
  'bulk contact operation is a job. A send (`kind: "send"`) carries `counts` of its messages by status; a bulk ' +
  'contact operation (`kind: "contacts"`) its `action` and `progress` (`total`, `done`, `failed`, `changed`). ' +
  'Unset fields are left out.';

/** Jobs (sends and bulk contact operations): list, get, cancel; bulk contact operations. */
export async function jobRoutes(app: App) {
  app.get(
    '/v1/accounts/:accountId/jobs',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['jobs'],
        summary: 'List jobs',
        description: `${JOB_DESCRIPTION} Newest first. Filters: \`status\`, \`kind\`, and \`from\` / \`to\` (creation time, from inclusive, to exclusive). A send's \`counts\` are answered by GET …/jobs/{jobId} only (counting reads every message of the job).`,
        params: IdParam('accountId'),
        querystring: JobListQuery,
        response: { 200: Collection(JobResource), ...errorResponses() },
      },
    },
    async (req) => page(await listJobs(app.ctx.db, req.params.accountId, req.query), (j) => j),
  );

  app.get(
    '/v1/accounts/:accountId/jobs/:jobId',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['jobs'],
        summary: 'Get a job',
        description: `${JOB_DESCRIPTION} A send's status: \`scheduled\` (with \`sendAt\`), \`queued\`, \`sending\`, \`completed\`, \`cancelled\`, or \`failed\` with its \`error\`. 404 MSG-007 for an unknown job (or another account's).`,
        params: IdParam('accountId', 'jobId'),
        response: { 200: Envelope(JobResource), ...errorResponses() },
      },
    },
    async (req) => ok(await getJob(app.ctx.db, req.params.accountId, req.params.jobId)),
  );

  app.put(
    '/v1/accounts/:accountId/jobs/:jobId/cancel',
    {
      config: { scope: 'messages:send' },
      schema: {
        tags: ['jobs'],
        summary: 'Cancel a job',
        description:
          'A scheduled send becomes `cancelled`: nothing is sent or charged. A running send (`queued`, `sending`): ' +
          'in one transaction every message no dispatcher has taken yet becomes `failed` with error JOB-001 ' +
          '(final: no receipt moves it) and is refunded, each with its `message-status` event; messages a ' +
          'dispatcher already holds (they read `sending`) may be at the carrier and finish normally. The job ' +
          'then reads `cancelled` and its `counts.cancelled` says how many were stopped. A bulk contact ' +
          'operation (which needs `contacts:write` too) stops after the chunk in progress; what was done stays done. ' +
          'A cancel takes effect once: a job that has ended (`completed`, `failed`, or `cancelled` already) is ' +
          '409 MSG-008, and nothing changes.',
        params: IdParam('accountId', 'jobId'),
        response: { 200: Envelope(JobResource), ...errorResponses(409) },
      },
    },
    async (req) => {
      const { accountId, jobId } = req.params;
      const job = await requireJob(app.ctx.db, accountId, jobId);
      if (job.kind === 'contacts' && !req.grant?.scopes.has('contacts:write'))
        fail('AUTH-004', 'The token lacks the scope "contacts:write".');
      return ok(await cancelJob(app.ctx.db, accountId, jobId, req.actor));
    },
  );

  app.post(
    '/v1/accounts/:accountId/bulk/contacts',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags: ['jobs'],
        summary: 'Run a bulk contact operation',
        description:
          'Applies one `action` to the contacts a `selector` names — exactly one of `ids` (at most ' +
          `${MAX_SELECTOR_IDS.toLocaleString('en')}), \`filters\` (the closed filters of a send: \`tags\`, \`attributes\`, \`q\`, ` +
          '`listId` / `list.id`, or `all: true`), or `listId` (every member of a list). Actions: `delete`, `block`, ' +
          '`unblock`, `optOut`, `optIn`, `tag` / `untag` (with `tags`), `addToList` / `removeFromList` (with ' +
          '`listId`, a static list; these need the `lists:write` scope too). The selection is taken now; the worker ' +
          'role applies the action in chunks (BULK_CHUNK_SIZE contacts per transaction), each contact through the ' +
          'same path as its single-contact endpoint, with the same events (`contact-updated`, `contact-removed`, ' +
          '`contact-opt-out`, `contact-opt-in`; list membership changes emit none, as with …/lists/{id}/contacts). ' +
          'A contact already as asked is left unchanged, without an event. Answers 202 with the job (`kind: ' +
          '"contacts"`); follow it with GET …/jobs/{id}, stop it with PUT …/jobs/{id}/cancel. A selector matching ' +
          'no contact answers a job `completed` with total 0. Ids naming no contact of the account are listed in ' +
          "`invalid` (CONT-002). 404 LIST-001 for an unknown list (another account's too); 409 LIST-002 for a " +
          'smart list as the target; 400 JOB-002 when `tags` or `listId` is missing for the action.',
        params: IdParam('accountId'),
        body: BulkContactsBody,
        response: { 202: Envelope(JobResource), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      if (LIST_ACTIONS.includes(req.body.action) && !req.grant?.scopes.has('lists:write'))
        fail('AUTH-004', 'The token lacks the scope "lists:write".');
      const job = await startContactJob(app.ctx.db, req.params.accountId, req.body, req.actor);
      return reply.code(202).send(ok(job));
    },
  );
}
