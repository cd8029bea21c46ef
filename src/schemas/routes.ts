import { Type } from '@sinclair/typebox';
import { PROVIDER_KINDS } from '../providers/names.ts';
import { AuditStamp, LiteralUnion } from './common.ts';
import { Provider } from './numbers.ts';

export const RouteProvider = Type.Object({
  provider: Provider,
  priority: Type.Integer({
    minimum: 1,
    maximum: 100,
    description:
      'Lower first: a message moves to the next priority only when every provider before it failed.',
  }),
  weight: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    description:
      "Share of the priority's messages this provider takes first (weight / sum of weights); 0: only as a fallback within the priority.",
  }),
});

export const Route = Type.Object({
  id: Type.String(),
  type: Type.Literal('route'),
  prefix: Type.Optional(
    Type.String({
      description: 'E.164 digits (no `+`) the destination starts with. The longest prefix wins.',
    }),
  ),
  country: Type.Optional(
    Type.String({ description: "ISO 3166-1 alpha-2 code of the destination's country." }),
  ),
  providers: Type.Array(RouteProvider, {
    description: 'In the order they are tried: by priority, then weight.',
  }),
  description: Type.Optional(Type.String()),
  created: AuditStamp,
  updated: AuditStamp,
});

const RouteInputProvider = Type.Object({
  provider: Provider,
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Lower first. Default 1.' })),
  weight: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10_000, description: 'Share within the priority. Default 1.' }),
  ),
});

/** The body of POST and PUT: a route is replaced whole. */
export const RouteBody = Type.Object({
  prefix: Type.Optional(
    Type.String({
      pattern: '^\\+?[0-9]{1,15}$',
      description:
        'Destinations starting with these E.164 digits (a leading `+` is dropped). Not with `country`.',
    }),
  ),
  country: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description:
        'Destinations in this country (ISO 3166-1 alpha-2). Not with `prefix`. Neither: every destination.',
    }),
  ),
  providers: Type.Array(RouteInputProvider, {
    minItems: 1,
    maxItems: 10,
    description: 'Each provider at most once.',
  }),
  description: Type.Optional(Type.String({ maxLength: 200 })),
});

/** A provider instance a route may name (GET …/providers): its name and kind, never its settings. */
export const ProviderChoice = Type.Object({
  name: Type.String({ description: 'The instance name a route (and a phone number) names.' }),
  kind: LiteralUnion(PROVIDER_KINDS, {
    description:
      'The adapter it runs on: the simulator, a Twilio-compatible REST account, or an SMPP carrier.',
  }),
  builtIn: Type.Boolean({
    description:
      'True for `simulator`, `twilio` (TWILIO_*) and `smpp` (SMPP_*); false for an instance of the PROVIDERS setting.',
  }),
});
