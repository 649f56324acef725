// The opening hours of a booking station, which both interfaces show: the operator configures them, the
// app's station search answers with them.
import { Type } from '@sinclair/typebox';
import { component } from '../kernel/schemas.js';

const OpeningRange = Type.Object(
  {
    from: Type.String({
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      maxLength: 5,
      description: 'Local HH:mm.',
    }),
    to: Type.String({
      pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
      maxLength: 5,
      description: 'Local HH:mm, after `from`; 24:00 ends the day.',
    }),
  },
  { additionalProperties: false },
);

export const OpeningHoursSchema = component(
  'BookingStationOpeningHours',
  Type.Object(
    Object.fromEntries(
      ['1', '2', '3', '4', '5', '6', '7'].map((day) => [
        day,
        Type.Optional(Type.Array(OpeningRange, { maxItems: 6 })),
      ]),
    ),
    {
      additionalProperties: false,
      description:
        "Per ISO weekday (1 = Monday … 7 = Sunday) the station's open ranges in its branch's time zone; a day left out is closed.",
    },
  ),
);
