import { cancelMeeting } from '../../domain/meetings/cancel-meeting.ts';
import { createMeetingEvent } from '../../domain/meetings/create-meeting-event.ts';
import { deleteMeetingEvent } from '../../domain/meetings/delete-meeting-event.ts';
import { duplicateMeetingEvent } from '../../domain/meetings/duplicate-meeting-event.ts';
import { getMeeting } from '../../domain/meetings/get-meeting.ts';
import { getMeetingEvent } from '../../domain/meetings/get-meeting-event.ts';
import { listMeetingEvents } from '../../domain/meetings/list-meeting-events.ts';
import { listMeetings } from '../../domain/meetings/list-meetings.ts';
import { updateMeetingEvent } from '../../domain/meetings/update-meeting-event.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  CreateMeetingEventBody,
  Meeting,
  MeetingEvent,
  MeetingEventListQuery,
  MeetingEventParams,
  MeetingListQuery,
  MeetingParams,
  UpdateMeetingEventBody,
} from '../../schemas/meetings.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['meetings'];

/** Meeting event types (each owning a public booking slug) and the meetings booked on them. */
export async function meetingRoutes(app: App) {
  const events = '/v1/accounts/:accountId/meetingevents';
  const meetings = '/v1/accounts/:accountId/meetings';

  app.get(
    events,
    {
      config: { scope: 'meetings:read' },
      schema: {
        tags,
        summary: 'List meeting event types',
        description: 'Newest first; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: MeetingEventListQuery,
        response: { 200: Collection(MeetingEvent), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listMeetingEvents(app.ctx.db, req.params.accountId, { name }, { offset, limit }),
        (e) => e,
      );
    },
  );

  app.post(
    events,
    {
      config: { scope: 'meetings:write' },
      schema: {
        tags,
        summary: 'Create a meeting event type',
        description:
          'Bookable on the public listener at `/v1/meetingevents/{slug}` while `active`. A slug taken by any ' +
          'account → 409 MEET-003; an unknown time zone or a range ending before it starts → 400 MEET-004.',
        params: IdParam('accountId'),
        body: CreateMeetingEventBody,
        response: { 201: Envelope(MeetingEvent), ...errorResponses(409) },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(ok(await createMeetingEvent(app.ctx.db, req.params.accountId, req.body, req.actor))),
  );

  app.get(
    `${events}/:meetingEventId`,
    {
      config: { scope: 'meetings:read' },
      schema: {
        tags,
        summary: 'Get a meeting event type',
        params: MeetingEventParams,
        response: { 200: Envelope(MeetingEvent), ...errorResponses() },
      },
    },
    async (req) => ok(await getMeetingEvent(app.ctx.db, req.params.accountId, req.params.meetingEventId)),
  );

  app.put(
    `${events}/:meetingEventId`,
    {
      config: { scope: 'meetings:write' },
      schema: {
        tags,
        summary: 'Update a meeting event type',
        description:
          'Updates the given fields only. Meetings already booked keep their times, hosts and buffer.',
        params: MeetingEventParams,
        body: UpdateMeetingEventBody,
        response: { 200: Envelope(MeetingEvent), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(
        await updateMeetingEvent(
          app.ctx.db,
          req.params.accountId,
          req.params.meetingEventId,
          req.body,
          req.actor,
        ),
      ),
  );

  app.delete(
    `${events}/:meetingEventId`,
    {
      config: { scope: 'meetings:write' },
      schema: {
        tags,
        summary: 'Delete a meeting event type',
        description: 'Frees its slug. Meetings booked on it stay, with `eventId` null.',
        params: MeetingEventParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteMeetingEvent(app.ctx.db, req.params.accountId, req.params.meetingEventId);
      return { success: true as const };
    },
  );

  app.post(
    `${events}/:meetingEventId/duplicate`,
    {
      config: { scope: 'meetings:write' },
      schema: {
        tags,
        summary: 'Duplicate a meeting event type',
        description:
          'A copy of every setting named "<name> (copy)" with a new unique slug (`<slug>-copy`, …).',
        params: MeetingEventParams,
        response: { 201: Envelope(MeetingEvent), ...errorResponses(409) },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await duplicateMeetingEvent(
              app.ctx.db,
              req.params.accountId,
              req.params.meetingEventId,
              req.actor,
            ),
          ),
        ),
  );

  app.get(
    meetings,
    {
      config: { scope: 'meetings:read' },
      schema: {
        tags,
        summary: 'List meetings',
        description: 'By start time; filters: `status`, start in [`from`, `to`), `eventId`.',
        params: IdParam('accountId'),
        querystring: MeetingListQuery,
        response: { 200: Collection(Meeting), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, ...filter } = req.query;
      return page(await listMeetings(app.ctx.db, req.params.accountId, filter, { offset, limit }), (m) => m);
    },
  );

  app.get(
    `${meetings}/:meetingId`,
    {
      config: { scope: 'meetings:read' },
      schema: {
        tags,
        summary: 'Get a meeting',
        params: MeetingParams,
        response: { 200: Envelope(Meeting), ...errorResponses() },
      },
    },
    async (req) => ok(await getMeeting(app.ctx.db, req.params.accountId, req.params.meetingId)),
  );

  app.put(
    `${meetings}/:meetingId/cancel`,
    {
      config: { scope: 'meetings:write' },
      schema: {
        tags,
        summary: 'Cancel a meeting',
        description:
          'Its slot is free again at once and no reminder is sent. Cancelling a cancelled meeting answers it ' +
          'unchanged; one that has ended → 409 MEET-018.',
        params: MeetingParams,
        response: { 200: Envelope(Meeting), ...errorResponses(409) },
      },
    },
    async (req) => ok(await cancelMeeting(app.ctx.db, req.params.accountId, req.params.meetingId, req.actor)),
  );
}
