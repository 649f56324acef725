// The MDS provider's pure rules (unit suite, no stack): the vehicle state machine and event mapping of
// docs/mds.md against the vendored MDS 2.0 schemas, version negotiation, hours, windows, paging and ids.
import { DomainError } from '../domain/errors.js';
import {
  allowedEventTypes,
  applyCause,
  causeOf,
  componentsAt,
  currentEventType,
  foldEvents,
  mdsStateOf,
  mdsModes,
  costInMinorUnits,
  reportCount,
  routeLengthMeters,
  serviceClassOf,
  transitionsOf,
  type MdsCause,
  type MdsComponents,
  type MdsMode,
} from '../domain/mds.js';
import {
  assertHourOver,
  assertMdsVersionAccepted,
  pagingLinks,
  parseMdsHour,
  recentEventsWindow,
  reportMonth,
} from '../domain/mds-query.js';
import { serviceStatesV2 } from '../domain/vehicle.js';
import { MDS_NAMESPACE, mdsId, uuidV5 } from '../db/mds-ids.js';
import { modeEventTypes } from './support/mds-schemas.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  return undefined;
};

const rentals: MdsComponents['rental'][] = ['none', 'reserved', 'driving', 'parking'];
/** Every combination of components fleetflow can be in. */
const everyComponents: MdsComponents[] = rentals.flatMap((rental) =>
  serviceStatesV2.flatMap((service) =>
    [false, true].flatMap((batteryLow) =>
      [false, true].map((offline) => ({ rental, service, batteryLow, offline })),
    ),
  ),
);
const everyCause: MdsCause[] = [
  'RENTAL_RESERVATION',
  'RENTAL_START',
  'RENTAL_PARK',
  'RENTAL_DRIVE',
  'RENTAL_END',
  'RENTAL_CANCEL_RESERVATION',
  'RENTAL_RESERVATION_EXPIRED',
  'VEHICLE_ONLINE',
  'VEHICLE_OFFLINE',
  ...serviceStatesV2.map((state) => `VEHICLE_SERVICE_STATE_V2_${state}`),
  ...['HIGH', 'MEDIUM', 'LOW', 'CRITICAL'].map((level) => `VEHICLE_BATTERY_LEVEL_${level}`),
].map((type) => causeOf(type)!);

describe('the MDS vehicle state machine (docs/mds.md)', () => {
  test.each(mdsModes)('the allowed event types per state are the vendored %s schema', (mode) => {
    const published = modeEventTypes(mode);
    expect(Object.keys(allowedEventTypes[mode]).sort()).toEqual(Object.keys(published).sort());
    for (const [state, types] of Object.entries(published))
      expect(
        [...allowedEventTypes[mode][state as keyof (typeof allowedEventTypes)[MdsMode]]!].sort(),
      ).toEqual([...types].sort());
  });

  test.each(mdsModes)('every transition of every cause from every state is allowed in %s', (mode) => {
    let transitions = 0;
    for (const components of everyComponents) {
      const current = mdsStateOf(components, mode);
      expect(allowedEventTypes[mode][current]).toContain(currentEventType(components, mode));
      for (const cause of everyCause) {
        const result = transitionsOf(components, cause, mode);
        expect(result.components).toEqual(applyCause(components, cause));
        for (const transition of result.transitions) {
          transitions++;
          expect({ state: transition.state, allowed: allowedEventTypes[mode][transition.state] }).toEqual({
            state: transition.state,
            allowed: expect.arrayContaining([transition.eventType]),
          });
        }
        // The fold ends where the components say the vehicle is.
        const last = result.transitions.at(-1);
        if (last) expect(last.state).toBe(mdsStateOf(result.components, mode));
        else expect(mdsStateOf(result.components, mode)).toBe(current);
      }
    }
    expect(transitions).toBeGreaterThan(1000);
  });

  test('the documented state table', () => {
    const base: MdsComponents = { rental: 'none', service: 'FUNCTIONAL', batteryLow: false, offline: false };
    const cases: Array<[Partial<MdsComponents>, string, string]> = [
      [{}, 'available', 'available'],
      [{ rental: 'reserved' }, 'reserved', 'reserved'],
      [{ rental: 'driving' }, 'on_trip', 'on_trip'],
      [{ rental: 'parking' }, 'on_trip', 'stopped'],
      [{ rental: 'driving', offline: true, service: 'COLLECT' }, 'on_trip', 'on_trip'],
      [{ service: 'RELOCATE' }, 'available', 'available'],
      [{ service: 'COLLECT' }, 'non_operational', 'non_operational'],
      [{ service: 'SERVICE_WORKSHOP' }, 'removed', 'removed'],
      [{ service: 'RETIRED', offline: true }, 'removed', 'removed'],
      [{ service: 'LOST' }, 'missing', 'non_contactable'],
      [{ offline: true }, 'non_contactable', 'non_contactable'],
      [{ batteryLow: true }, 'non_operational', 'available'],
    ];
    for (const [change, micro, car] of cases) {
      expect([change, mdsStateOf({ ...base, ...change }, 'micromobility')]).toEqual([change, micro]);
      expect([change, mdsStateOf({ ...base, ...change }, 'car-share')]).toEqual([change, car]);
    }
    for (const service of serviceStatesV2) expect(serviceClassOf[service]).toBeDefined();
  });

  const rental = [
    'RENTAL_RESERVATION',
    'RENTAL_START',
    'RENTAL_PARK',
    'RENTAL_DRIVE',
    'RENTAL_END',
    'VEHICLE_BATTERY_LEVEL_HIGH',
  ].map((type, index) => ({ type, index }));
  const ready: MdsComponents = { rental: 'none', service: 'FUNCTIONAL', batteryLow: false, offline: false };
  const sequence = (mode: MdsMode, events: Array<{ type: string }> = rental, start = ready) =>
    foldEvents(start, mode, events).map(({ source, transition }) => [
      source.type,
      transition.state,
      transition.eventType,
    ]);

  test('a whole rental of a scooter: reserved, on trip (parking stays on the trip), available', () => {
    expect(sequence('micromobility')).toEqual([
      ['RENTAL_RESERVATION', 'reserved', 'reservation_start'],
      ['RENTAL_START', 'on_trip', 'trip_start'],
      ['RENTAL_END', 'available', 'trip_end'],
    ]);
  });

  test('a whole rental of a car: reserved, on trip, stopped while parked, on trip again, available', () => {
    expect(sequence('car-share')).toEqual([
      ['RENTAL_RESERVATION', 'reserved', 'reservation_start'],
      ['RENTAL_START', 'on_trip', 'trip_start'],
      ['RENTAL_PARK', 'stopped', 'trip_stop'],
      ['RENTAL_DRIVE', 'on_trip', 'trip_resume'],
      ['RENTAL_END', 'available', 'trip_end'],
    ]);
  });

  test('a trip ending on a flat battery: available with trip_end, then non_operational with battery_low', () => {
    const events = [
      'RENTAL_RESERVATION',
      'RENTAL_START',
      'VEHICLE_BATTERY_LEVEL_LOW',
      'RENTAL_END',
      'VEHICLE_BATTERY_LEVEL_HIGH',
    ];
    expect(
      sequence(
        'micromobility',
        events.map((type) => ({ type })),
      ),
    ).toEqual([
      ['RENTAL_RESERVATION', 'reserved', 'reservation_start'],
      ['RENTAL_START', 'on_trip', 'trip_start'],
      ['RENTAL_END', 'available', 'trip_end'],
      ['RENTAL_END', 'non_operational', 'battery_low'],
      ['VEHICLE_BATTERY_LEVEL_HIGH', 'available', 'battery_charged'],
    ]);
  });

  test('cancelled and expired reservations, workshop and back, lost and found, comms', () => {
    const events = [
      'RENTAL_RESERVATION',
      'RENTAL_CANCEL_RESERVATION',
      'RENTAL_RESERVATION',
      'RENTAL_RESERVATION_EXPIRED',
      'VEHICLE_SERVICE_STATE_V2_SERVICE_WORKSHOP',
      'VEHICLE_SERVICE_STATE_V2_FUNCTIONAL',
      'VEHICLE_SERVICE_STATE_V2_LOST',
      'VEHICLE_SERVICE_STATE_V2_FUNCTIONAL',
      'VEHICLE_OFFLINE',
      'VEHICLE_ONLINE',
      'VEHICLE_SERVICE_STATE_V2_RETIRED',
    ].map((type) => ({ type }));
    expect(sequence('micromobility', events).map(([, state, type]) => `${state}:${type}`)).toEqual([
      'reserved:reservation_start',
      'available:reservation_cancel',
      'reserved:reservation_start',
      'available:reservation_cancel',
      'removed:maintenance_pick_up',
      'available:provider_drop_off',
      'missing:not_located',
      'available:located',
      'non_contactable:comms_lost',
      'available:comms_restored',
      'removed:decommissioned',
    ]);
    expect(sequence('car-share', events).map(([, state, type]) => `${state}:${type}`)).toEqual([
      'reserved:reservation_start',
      'available:customer_cancellation',
      'reserved:reservation_start',
      'available:provider_cancellation',
      'removed:maintenance_pick_up',
      'available:service_start',
      'non_contactable:comms_lost',
      'available:service_start',
      'non_contactable:comms_lost',
      'available:comms_restored',
      'removed:decommissioned',
    ]);
  });

  test('the state a window starts from: the last event before it, else the next change after it, else now', () => {
    const current: MdsComponents = {
      rental: 'none',
      service: 'FUNCTIONAL',
      batteryLow: false,
      offline: true,
    };
    expect(
      componentsAt(current, ['RENTAL_START', 'VEHICLE_ONLINE', 'VEHICLE_SERVICE_STATE_V2_COLLECT'], []),
    ).toEqual({ rental: 'driving', service: 'COLLECT', batteryLow: false, offline: false });
    expect(componentsAt(current, [], [])).toEqual(current);
    // Nothing before the window: the first change after it says what the vehicle was before.
    expect(
      componentsAt(
        current,
        [],
        [
          { type: 'VEHICLE_OFFLINE' },
          { type: 'VEHICLE_SERVICE_STATE_V2_LOST', payload: { from: 'INSPECT', to: 'LOST' } },
          { type: 'VEHICLE_BATTERY_LEVEL_HIGH' },
          { type: 'RENTAL_END' },
        ],
      ),
    ).toEqual({ rental: 'none', service: 'INSPECT', batteryLow: true, offline: false });
    // A family known from before the window ignores what comes after it.
    expect(componentsAt(current, ['VEHICLE_OFFLINE'], [{ type: 'VEHICLE_OFFLINE' }]).offline).toBe(true);
    expect(
      componentsAt(current, [], [{ type: 'VEHICLE_SERVICE_STATE_V2_LOST', payload: { from: 'NOPE' } }])
        .service,
    ).toBe('FUNCTIONAL');
    expect(causeOf('VEHICLE_SERVICE_STATE_V2_NOPE')).toBeUndefined();
    expect(causeOf('VEHICLE_BATTERY_LEVEL_UNKNOWN')).toBeUndefined();
    expect(causeOf('RENTAL_FEEDBACK')).toBeUndefined();
  });
});

describe('MDS requests', () => {
  test('version negotiation: MDS 2.0, JSON or nothing is served; other MDS versions are MDS406', () => {
    for (const accept of [
      undefined,
      '',
      'application/vnd.mds+json;version=2.0',
      'application/vnd.mds+json; version="2.0"',
      'application/vnd.mds+json;version=1.2, application/vnd.mds+json;version=2.0;q=0.5',
      'application/json',
      '*/*',
      'application/*;q=0.1',
    ])
      expect([accept, codeOf(() => assertMdsVersionAccepted(accept))]).toEqual([accept, undefined]);
    for (const accept of [
      'application/vnd.mds+json;version=1.2',
      'application/vnd.mds+json',
      'application/vnd.mds+json;version=2.0;q=0',
      'application/vnd.mds+json;version=2.0;q=0x1',
      'text/html',
      'text/csv',
      '\u0000',
      ';;;,,,',
    ])
      expect([accept, codeOf(() => assertMdsVersionAccepted(accept))]).toEqual([accept, 'MDS406']);
    expect(codeOf(() => assertMdsVersionAccepted('text/csv', ['text/csv']))).toBeUndefined();
    expect(codeOf(() => assertMdsVersionAccepted('text/*', ['text/csv']))).toBeUndefined();
  });

  test('hours are existing UTC hours YYYY-MM-DDTHH from 1970; anything else is MDS400', () => {
    expect(parseMdsHour('2024-02-29T23', 'end_time').toISOString()).toBe('2024-02-29T23:00:00.000Z');
    expect(parseMdsHour('2023-11-05T00', 'end_time').toISOString()).toBe('2023-11-05T00:00:00.000Z');
    for (const bad of [
      '2023-02-29T10',
      '2023-13-01T00',
      '2023-00-10T00',
      '2023-01-01T24',
      '1969-12-31T23',
      '2023-01-01',
      '2023-01-01T1',
      '2023-01-01T10:00',
      '2023-01-01T10Z',
      ' 2023-01-01T10',
      '2023-01-01T10\u0000',
      '+02023-01-01T10',
      '２０２３-01-01T10',
      '',
    ])
      expect([bad, codeOf(() => parseMdsHour(bad, 'end_time'))]).toEqual([bad, 'MDS400']);
    const now = new Date('2026-12-01T10:30:00Z');
    expect(codeOf(() => assertHourOver(parseMdsHour('2026-12-01T10', 'x'), now))).toBe('MDS405');
    expect(codeOf(() => assertHourOver(parseMdsHour('2027-01-01T00', 'x'), now))).toBe('MDS405');
    expect(assertHourOver(parseMdsHour('2026-12-01T09', 'x'), now).to.toISOString()).toBe(
      '2026-12-01T10:00:00.000Z',
    );
  });

  test('recent events: start before end, at most two weeks back, not in the future (MDS401)', () => {
    const now = new Date('2026-12-01T10:00:00Z');
    const hour = 3_600_000;
    expect(recentEventsWindow(now.getTime() - hour, now.getTime(), now).from.getTime()).toBe(
      now.getTime() - hour,
    );
    expect(codeOf(() => recentEventsWindow(now.getTime(), now.getTime(), now))).toBe('MDS401');
    expect(codeOf(() => recentEventsWindow(now.getTime() - 15 * 24 * hour, now.getTime(), now))).toBe(
      'MDS401',
    );
    expect(codeOf(() => recentEventsWindow(now.getTime() - hour, now.getTime() + 1, now))).toBe('MDS401');
  });

  test('report months: YYYY-MM.csv of a month that is over (MDS407 otherwise)', () => {
    const now = new Date('2026-12-01T10:00:00Z');
    expect(reportMonth('2026-11.csv', now)).toEqual({
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-12-01T00:00:00Z'),
      label: '2026-11-01',
    });
    for (const bad of [
      '2026-12.csv',
      '2026-13.csv',
      '2026-00.csv',
      '2026-11',
      '1969-12.csv',
      '../x.csv',
      '2026-11.csv\u0000',
    ])
      expect([bad, codeOf(() => reportMonth(bad, now))]).toEqual([bad, 'MDS407']);
    expect([0, 1, 10, 11].map(reportCount)).toEqual([0, -1, -1, 11]);
    expect(costInMinorUnits('12.345', 'EUR')).toBe(1235);
    expect(costInMinorUnits('0.1', 'EUR') === 10 && costInMinorUnits('7', 'JPY') === 7).toBe(true);
    expect([costInMinorUnits('-1.00', 'EUR'), costInMinorUnits('x', 'EUR')]).toEqual([undefined, undefined]);
  });

  test('paging links: first, last, prev and next of a page', () => {
    const url = (page: number) => `https://x.test/v?page=${page}`;
    expect(pagingLinks(url, 0, 10, 25)).toEqual({
      first: url(0),
      last: url(2),
      prev: null,
      next: url(1),
    });
    expect(pagingLinks(url, 2, 10, 25)).toEqual({ first: url(0), last: url(2), prev: url(1), next: null });
    expect(pagingLinks(url, 7, 10, 0)).toEqual({ first: url(0), last: url(0), prev: url(0), next: null });
  });
});

describe('MDS identifiers', () => {
  test('UUIDv5 as RFC 9562 defines it (the DNS namespace example), stable and distinct per tenant', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe(
      '886313e1-3b8a-5372-9b90-0c9aee199e5d',
    );
    expect(mdsId('demo', 'device', 7)).toBe(mdsId('demo', 'device', 7));
    // Remembered or not, an id is the UUIDv5 of its name in fleetflow's namespace.
    for (const [kind, key] of [
      ['device', 7],
      ['event', '12.1'],
      ['provider', ''],
    ] as const)
      expect(mdsId('demo', kind, key)).toBe(uuidV5(MDS_NAMESPACE, `demo/${kind}/${key}`));
    expect(mdsId('demo', 'device', 7)).not.toBe(mdsId('other', 'device', 7));
    expect(mdsId('demo', 'device', 7)).not.toBe(mdsId('demo', 'trip', 7));
    expect(mdsId('demo', 'provider')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  test('route length along great circles', () => {
    expect(routeLengthMeters([])).toBe(0);
    expect(routeLengthMeters([{ lat: 52.52, lng: 13.4 }])).toBe(0);
    // One degree of latitude is about 111.2 km.
    expect(
      routeLengthMeters([
        { lat: 0, lng: 0 },
        { lat: 1, lng: 0 },
      ]),
    ).toBeGreaterThan(111_000);
    expect(
      routeLengthMeters([
        { lat: 0, lng: 0 },
        { lat: 1, lng: 0 },
      ]),
    ).toBeLessThan(111_400);
  });
});
