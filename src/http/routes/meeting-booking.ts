import { bookMeeting } from '../../domain/meetings/book-meeting.ts';
import { getPublicMeetingEvent } from '../../domain/meetings/get-public-meeting-event.ts';
import { listSlots } from '../../domain/meetings/list-slots.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import {
  BookingBody,
  Meeting,
  PublicMeetingEvent,
  SlotList,
  SlotsQuery,
  SlugParam,
} from '../../schemas/meetings.ts';
import { ok } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['meeting-booking'];

/**
 * Public meeting booking on the externals listener: no bearer token (the interface's sample for
 * endpoint 25 carries none); the slug names the event type and through it the account.
 */
export async function meetingBookingRoutes(app: App) {
  const base = '/v1/meetingevents/:slug';

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'A bookable meeting event type',
        description: 'Unknown or inactive slug → 404 MEET-001. Hosts are shown by name only.',
        params: SlugParam,
        response: { 200: Envelope(PublicMeetingEvent), ...errorResponses() },
      },
    },
    async (req) => ok(await getPublicMeetingEvent(app.ctx.db, req.params.slug)),
  );

  app.get(
    `${base}/slots`,
    {
      schema: {
        tags,
        summary: 'Free start times',
        description:
          'Start times in [`from`, `to`) for a meeting of `duration` minutes, from the weekly availability in the ' +
          "event's time zone, without times inside the minimum notice or past the horizon, and without times " +
          'that would overlap a booked meeting (buffers included).',
        params: SlugParam,
        querystring: SlotsQuery,
        response: { 200: Envelope(SlotList), ...errorResponses() },
      },
    },
    async (req) => ok(await listSlots(app.ctx.db, req.params.slug, req.query)),
  );

  app.post(
    `${base}/book`,
    {
      schema: {
        tags,
        summary: 'Book a meeting',
        description:
          'Books `start` (one of the free slots) for `duration` minutes. Attendees with a mobile become contacts ' +
          'and are sent a confirmation text (and a reminder), within the event type’s hourly cap of texts ' +
          '(`BOOKING_TEXTS_PER_HOUR`; past it the meeting is booked without texts). A slot taken meanwhile → 409 MEET-016.',
        params: SlugParam,
        body: BookingBody,
        response: { 200: Envelope(Meeting), ...errorResponses(409) },
      },
    },
    async (req) => {
      const booked = await bookMeeting(app.ctx.db, req.params.slug, req.body, {
        textsPerHour: app.ctx.config.anonymousTextsPerHour.booking,
        prices: app.ctx.config.priceTable,
      });
      if (booked.textsCapped) {
        req.log.warn({ slug: req.params.slug }, 'booking texts: hourly cap reached, none sent');
      }
      return ok(booked.meeting);
    },
  );
}
