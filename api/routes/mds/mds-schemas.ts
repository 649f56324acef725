// The MDS 2.0 provider's bodies as TypeBox schemas (docs/mds.md): the kernel documents and checks them;
// the tests also validate every answer against the Open Mobility Foundation's own schemas
// (vendor/mds-openapi, tests/support/mds-schemas.ts), which these follow field for field.
import { Type, type TSchema } from '@sinclair/typebox';
import { mdsPropulsionTypes, mdsVehicleStates, mdsVehicleTypes } from '../../../domain/mds.js';
import { component, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

const Uuid = Type.String({ format: 'uuid' });
/** Integer milliseconds since the Unix epoch. */
const Timestamp = Type.Integer({ minimum: 1514764800000 });

export const MdsGps = component(
  'MdsGps',
  Type.Object(
    {
      lat: Type.Number({ minimum: -90, maximum: 90 }),
      lng: Type.Number({ minimum: -180, maximum: 180 }),
      speed: Type.Optional(Type.Number({ description: 'Metres per second.' })),
    },
    { additionalProperties: false },
  ),
);

export const MdsVehicle = component(
  'MdsVehicle',
  Type.Object(
    {
      device_id: Uuid,
      provider_id: Uuid,
      vehicle_id: Type.String({ maxLength: 255 }),
      vehicle_type: StringEnum(mdsVehicleTypes),
      propulsion_types: Type.Array(StringEnum(mdsPropulsionTypes), { minItems: 1, uniqueItems: true }),
      vehicle_attributes: Type.Optional(
        Type.Object(
          { make: Type.Optional(Type.String()), model: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      ),
      maximum_speed: Type.Optional(Type.Integer({ minimum: 0 })),
    },
    { additionalProperties: false },
  ),
);

export const MdsEvent = component(
  'MdsEvent',
  Type.Object(
    {
      device_id: Uuid,
      provider_id: Uuid,
      event_id: Uuid,
      vehicle_state: StringEnum(mdsVehicleStates),
      event_types: Type.Array(Type.String(), { minItems: 1, uniqueItems: true }),
      timestamp: Timestamp,
      location: MdsGps,
      trip_ids: Type.Optional(Type.Array(Uuid, { uniqueItems: true })),
      battery_percent: Type.Optional(Int(0, 100)),
    },
    { additionalProperties: false },
  ),
);

export const MdsTelemetry = component(
  'MdsTelemetry',
  Type.Object(
    {
      device_id: Uuid,
      provider_id: Uuid,
      telemetry_id: Uuid,
      timestamp: Timestamp,
      trip_ids: Nullable(Type.Array(Uuid, { minItems: 1, uniqueItems: true })),
      journey_id: Nullable(Uuid),
      location: MdsGps,
      battery_percent: Type.Optional(Int(0, 100)),
    },
    { additionalProperties: false },
  ),
);

export const MdsVehicleStatus = component(
  'MdsVehicleStatus',
  Type.Object(
    { device_id: Uuid, provider_id: Uuid, last_event: MdsEvent, last_telemetry: MdsTelemetry },
    { additionalProperties: false },
  ),
);

export const MdsTrip = component(
  'MdsTrip',
  Type.Object(
    {
      provider_id: Uuid,
      device_id: Uuid,
      trip_id: Uuid,
      journey_id: Type.Optional(Uuid),
      trip_type: Type.Array(Type.String(), { minItems: 1, maxItems: 1 }),
      start_time: Timestamp,
      end_time: Timestamp,
      start_location: MdsGps,
      end_location: MdsGps,
      duration: Type.Integer({ minimum: 0 }),
      distance: Type.Integer({ minimum: 0 }),
      actual_cost: Type.Optional(Type.Integer({ minimum: 0, description: 'Minor units of `currency`.' })),
      currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    },
    { additionalProperties: false },
  ),
);

export const MdsLinks = component(
  'MdsLinks',
  Type.Object(
    {
      first: Nullable(Type.String({ format: 'uri' })),
      last: Nullable(Type.String({ format: 'uri' })),
      prev: Nullable(Type.String({ format: 'uri' })),
      next: Nullable(Type.String({ format: 'uri' })),
    },
    { additionalProperties: false, description: 'JSON:API paging links (absolute URLs).' },
  ),
);

/** An MDS answer: `version`, paging `links` when paged, `last_updated` and `ttl` when real-time, the payload. */
export function mdsBody<K extends string, T extends TSchema>(
  name: string,
  key: K,
  item: T,
  options: { realtime?: boolean; single?: boolean } = {},
) {
  return component(
    name,
    Type.Object(
      {
        version: Type.String({ pattern: '^2\\.(\\d|[1-9]\\d+)\\.(\\d|[1-9]\\d+)$' }),
        ...(options.single ? {} : { links: MdsLinks }),
        ...(options.realtime
          ? { last_updated: Timestamp, ttl: Type.Integer({ minimum: 0, maximum: 300000 }) }
          : {}),
        [key]: Type.Array(item, options.single ? { minItems: 1, maxItems: 1 } : {}),
      } as Record<'version' | K, TSchema>,
      { additionalProperties: false },
    ),
  );
}

/** The `device_id` path parameter. */
export const DeviceIdParams = Type.Object({ device_id: Type.String({ format: 'uuid', maxLength: 36 }) });

/** A UTC hour `YYYY-MM-DDTHH`, checked by the handler (MDS400) so that impossible dates answer alike. */
export const HourText = (description: string) => Str(40, { description });
