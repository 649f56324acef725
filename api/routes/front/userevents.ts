// App interaction telemetry (`POST /userevents?type=APP_…`): only APP_ types, an optional small JSON body
// kept as the event's request information (sensitive keys and values dropped), the Device-Position header
// stored as the event's position when valid and ignored otherwise, the signed-in customer linked when a
// token is sent. The rules live in domain/app-events.ts; see docs/messages.md ("App events").
import { Type } from '@sinclair/typebox';
import { branchDirectory } from '../../../db/branches.js';
import {
  APP_EVENT_BODY_MAX_BYTES,
  APP_EVENT_TYPE_MAX_LENGTH,
  appEventTypePattern,
  appEventTypes,
  parseDevicePosition,
  sanitizeRequestInfo,
} from '../../../domain/app-events.js';
import { DomainError } from '../../../domain/errors.js';
import { noContent, defineRoute } from '../../kernel/route.js';
import { noNul, Str } from '../../kernel/schemas.js';

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
  description: [
    `The spec's types: ${appEventTypes.join(', ')}; other \`APP_\` names are accepted too. Legacy (LOGIN, SIGNUP, LOGOUT, START) and backend types (RENTAL_START, …) are refused (0022): the backend records those itself.`,
    'Anonymous calls are accepted; a token sent must be valid (AUTH005, or 0001 when expired) and links the event: a customer token to that customer (guser), an app client token as the acting subject.',
    `The optional JSON body (at most ${APP_EVENT_BODY_MAX_BYTES} bytes, 0024 beyond) is stored as the event's \`requestInfo\`; keys naming passwords, tokens, card, bank or identity-document data, and values that look like a JWT, a bearer credential or a card number, are dropped (their paths are listed in \`droppedKeys\`). A \`branchId\` naming a branch of the tenant becomes the event's branch.`,
    "The optional `Device-Position` header (latitude then longitude, WGS84 decimal, separated by `;` or a space: `52.52;13.405`, `52.52 13.405`) is stored as the event's position when valid; a missing or invalid value is ignored without failing the call.",
  ].join('\n\n'),
  tags: ['App events'],
  query: Type.Object({
    type: Str(APP_EVENT_TYPE_MAX_LENGTH, {
      pattern: appEventTypePattern,
      description: `An APP_ type: ${appEventTypes.join(', ')}, or another APP_ name.`,
    }),
  }),
  headers: Type.Object({
    // No pattern, and a bound that leaves room for the other headers within Node's 16 KiB (beyond it the
    // server answers 431 before any route): an invalid value is ignored by the handler, not refused.
    'Device-Position': Type.Optional(
      Type.String({
        maxLength: 12288,
        description:
          'Latitude then longitude, WGS84 decimal, separated by `;` or a space; ignored when invalid.',
      }),
    ),
  }),
  body: AppEventInfo,
  bodyRequired: false,
  access: { anonymous: 'apps report interactions before anyone signs in; events are write-only.' },
  authentication: 'optional',
  responses: { 204: { description: 'Recorded' } },
  errors: ['0024'],
  async handler({ em, tenant, query, headers, body, rawBody, principal, recordEvent }) {
    if (rawBody && rawBody.length > APP_EVENT_BODY_MAX_BYTES)
      throw new DomainError(
        '0024',
        `app event details are at most ${APP_EVENT_BODY_MAX_BYTES} bytes: send small UI context only`,
      );
    const { kept, dropped } = sanitizeRequestInfo(body ?? {});
    const payload: Record<string, unknown> = {};
    if (Object.keys(kept).length) payload.requestInfo = kept;
    if (dropped.length) payload.droppedKeys = dropped;
    const customer = principal?.subjectType === 'CUSTOMER' ? Number(principal.subjectId) : null;
    const claimedBranch = kept.branchId;
    const branchId =
      Number.isInteger(claimedBranch) &&
      (await branchDirectory(em, tenant)).branches.has(claimedBranch as number)
        ? (claimedBranch as number)
        : null;
    recordEvent({
      type: query.type,
      position: parseDevicePosition(headers['Device-Position']) ?? null,
      customerId: customer,
      adminSubject: customer === null ? (principal?.subject ?? null) : null,
      branchId,
      payload: Object.keys(payload).length ? payload : null,
    });
    return noContent();
  },
});

export const userEventRoutes = [postUserEvent];
