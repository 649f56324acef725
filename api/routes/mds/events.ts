// MDS 2.0 provider: /events/historical (one UTC hour) and /events/recent (a window of the last two
// weeks), docs/mds.md. Events are a fold over fleetflow's own events of each vehicle, started from the state
// the vehicle's last events before the window left it; a page holds every event of a page of vehicles.
import { Type } from '@sinclair/typebox';
import { componentsAt, foldEvents } from '../../../domain/mds.js';
import { assertHourOver, parseMdsHour, recentEventsWindow } from '../../../domain/mds-query.js';
import {
  publishedVehiclePage,
  sourceEvents,
  sourceEventsAround,
  vehiclesWithEvents,
} from '../../../db/mds.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import {
  agencyAccess,
  beginMdsRead,
  currentComponents,
  linksOf,
  mdsEvent,
  mdsHeaders,
  mdsReadErrors,
  modeOf,
  version,
} from './mds-representation.js';
import { HourText, mdsBody, MdsEvent } from './mds-schemas.js';

const tags = ['MDS events'];
const paged = { defaultSize: 100, maxSize: 1000 };
const EventsBody = mdsBody('MdsEventsBody', 'events', MdsEvent);

/** The MDS events of one page of the vehicles with source events in the window. */
async function eventsOf(ctx: RouteContext, window: { from: Date; to: Date }) {
  const { ids, total } = await vehiclesWithEvents(ctx.em, ctx.tenant, window, ctx.page);
  if (!ids.length) return { events: [], total };
  const [{ rows }, events, around] = await Promise.all([
    publishedVehiclePage(ctx.em, ctx.tenant, { ids }),
    sourceEvents(ctx.em, ctx.tenant, ids, window),
    sourceEventsAround(ctx.em, ctx.tenant, ids, window.from),
  ]);
  const out = [];
  for (const row of rows) {
    const mode = modeOf(row);
    const own = around.filter((nearest) => nearest.vehicleId === row.id);
    const start = componentsAt(
      currentComponents(row),
      own.filter((nearest) => nearest.before).map((nearest) => nearest.type),
      own.filter((nearest) => !nearest.before),
    );
    const mine = events.filter((event) => event.vehicleId === row.id);
    for (const { source, transition } of foldEvents(start, mode, mine))
      out.push(mdsEvent(ctx.tenant, row, source, transition));
  }
  return { events: out, total };
}

export const mdsEventsHistorical = defineRoute({
  operationId: 'mdsEventsHistorical',
  method: 'get',
  path: '/events/historical',
  interface: 'mds',
  summary: 'State changes of one past UTC hour (MDS get-events-historical-event_time)',
  description:
    'Every MDS event with a timestamp in the hour, for one page of the vehicles that had any (docs/mds.md, "Events"). The hour must be over (MDS405).',
  tags,
  paged,
  query: Type.Object({ event_time: HourText('The UTC hour, `YYYY-MM-DDTHH`.') }),
  access: agencyAccess,
  responses: { 200: { description: 'Events', schema: EventsBody, mediaType: mdsHeaders['Content-Type'] } },
  errors: [...mdsReadErrors, 'MDS400', 'MDS405'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const window = assertHourOver(parseMdsHour(ctx.query.event_time, 'event_time'), new Date());
    const { events, total } = await eventsOf(ctx, window);
    return ok(
      { version, links: linksOf(ctx, '/events/historical', total), events },
      { total, headers: mdsHeaders },
    );
  },
});

const Millis = (description: string) => Type.Integer({ minimum: 0, maximum: 253402300799999, description });

export const mdsEventsRecent = defineRoute({
  operationId: 'mdsEventsRecent',
  method: 'get',
  path: '/events/recent',
  interface: 'mds',
  summary: 'State changes of the last two weeks (MDS get-events-recent-start_time-end_time)',
  description:
    'Every MDS event with `start_time <= timestamp < end_time` (epoch milliseconds, at most two weeks back), for one page of the vehicles that had any.',
  tags,
  paged,
  query: Type.Object({
    start_time: Millis('Inclusive start, epoch milliseconds.'),
    end_time: Millis('Exclusive end, epoch milliseconds.'),
  }),
  access: agencyAccess,
  responses: { 200: { description: 'Events', schema: EventsBody, mediaType: mdsHeaders['Content-Type'] } },
  errors: [...mdsReadErrors, 'MDS401'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const window = recentEventsWindow(ctx.query.start_time, ctx.query.end_time, new Date());
    const { events, total } = await eventsOf(ctx, window);
    return ok(
      { version, links: linksOf(ctx, '/events/recent', total), events },
      { total, headers: mdsHeaders },
    );
  },
});

export const mdsEventRoutes = [mdsEventsHistorical, mdsEventsRecent];
