import { Type } from '@sinclair/typebox';
import { noContent, defineRoute } from '../../kernel/route.js';
import { noNul, Str } from '../../kernel/schemas.js';

/** Parses the Device-Position header ("lat;lng" or "lat lng"); invalid values are ignored, as the spec asks. */
export function parseDevicePosition(header: string | undefined): { lat: number; lng: number } | undefined {
  const parts = header?.trim().split(/[;\s]+/);
  if (!parts || parts.length !== 2) return undefined;
  const [lat, lng] = parts.map(Number) as [number, number];
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180)
    return undefined;
  return { lat, lng };
}

const Scalar = Type.Union([
  Str(2000),
  Type.Number({ minimum: -1e15, maximum: 1e15 }),
  Type.Boolean(),
  Type.Null(),
]);

/** What an app reports with an event: up to 20 named values, each a scalar, a short list or a flat object. */
const AppEventInfo = Type.Object(
  {},
  {
    additionalProperties: Type.Union([
      Scalar,
      Type.Array(Scalar, { maxItems: 50 }),
      Type.Object(
        {},
        {
          additionalProperties: Scalar,
          maxProperties: 20,
          propertyNames: { maxLength: 100, pattern: noNul },
        },
      ),
    ]),
    maxProperties: 20,
    propertyNames: { maxLength: 100, pattern: noNul },
    description: 'Free-form details of the interaction (screen, button, ...), stored as the event payload.',
  },
);

/** `POST /userevents?type=APP_...`: app interaction telemetry, anonymous or linked to the signed-in caller. */
export const postUserEvent = defineRoute({
  operationId: 'postUserEvent',
  method: 'post',
  path: '/userevents',
  interface: 'front',
  summary: 'Record one app interaction (type must start with APP_)',
  description:
    'Anonymous calls are accepted; with a valid token the event is linked to the caller. The optional `Device-Position` header ("lat;lng" or "lat lng", WGS84) is stored when valid and ignored otherwise.',
  tags: ['App events'],
  query: Type.Object({ type: Str(64, { pattern: '^APP_[A-Z0-9_]{1,60}$' }) }),
  headers: Type.Object({ 'Device-Position': Type.Optional(Str(64)) }),
  body: AppEventInfo,
  bodyRequired: false,
  access: { anonymous: 'apps report interactions before anyone signs in; events are write-only.' },
  authentication: 'optional',
  responses: { 204: { description: 'Recorded' } },
  errors: [],
  async handler({ query, headers, body, principal, recordEvent }) {
    const payload = body && Object.keys(body).length ? { requestInfo: body } : null;
    recordEvent({
      type: query.type,
      position: parseDevicePosition(headers['Device-Position']) ?? null,
      adminSubject: principal?.subject ?? null,
      payload,
    });
    return noContent();
  },
});

export const userEventRoutes = [postUserEvent];
