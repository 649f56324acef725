// Booking station rules without infrastructure: local wall-clock times across daylight saving, opening
// hours for pickups and returns, expected vehicles from the flows in and out, and a pool's remaining cars.
import {
  expectedVehicles,
  isOpenAt,
  localClock,
  openingHoursProblems,
  poolRemaining,
  zonedInstant,
} from '../domain/booking.js';

const zone = 'Europe/Berlin';

describe('station clocks and flows (pure)', () => {
  it('converts local wall-clock times across daylight saving', () => {
    // 2026-03-29: Berlin moves from +01:00 to +02:00 at 02:00 local.
    expect(new Date(zonedInstant('2026-03-28', 12 * 60, zone)).toISOString()).toBe(
      '2026-03-28T11:00:00.000Z',
    );
    expect(new Date(zonedInstant('2026-03-30', 12 * 60, zone)).toISOString()).toBe(
      '2026-03-30T10:00:00.000Z',
    );
    expect(new Date(zonedInstant('2026-10-26', 0, zone)).toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(localClock(Date.parse('2026-07-01T21:30:00Z'), zone)).toEqual({
      date: '2026-07-01',
      weekday: 3,
      minutes: 23 * 60 + 30,
    });
    // An unknown zone reads as UTC rather than failing.
    expect(localClock(Date.parse('2026-07-01T21:30:00Z'), 'Mars/Olympus').minutes).toBe(21 * 60 + 30);
  });

  it('decides pickups and returns against opening hours', () => {
    const hours = { '3': [{ from: '06:00', to: '23:00' }], '4': [{ from: '00:00', to: '24:00' }] };
    const at = (iso: string) => Date.parse(iso);
    expect(isOpenAt(hours, zone, at('2026-07-01T04:00:00Z'), 'pickup')).toBe(true); // 06:00 local
    expect(isOpenAt(hours, zone, at('2026-07-01T03:59:00Z'), 'pickup')).toBe(false);
    expect(isOpenAt(hours, zone, at('2026-07-01T21:00:00Z'), 'pickup')).toBe(false); // 23:00: closes
    expect(isOpenAt(hours, zone, at('2026-07-01T21:00:00Z'), 'return')).toBe(true); // return at closing
    expect(isOpenAt(hours, zone, at('2026-07-02T22:00:00Z'), 'return')).toBe(true); // Fri 00:00 = Thu 24:00
    expect(isOpenAt(hours, zone, at('2026-07-03T10:00:00Z'), 'pickup')).toBe(false); // Friday: closed
    expect(isOpenAt(null, zone, at('2026-07-03T10:00:00Z'), 'pickup')).toBe(true);
    expect(openingHoursProblems({ '1': [{ from: '10:00', to: '09:00' }] })).toHaveLength(1);
    expect(
      openingHoursProblems({
        '1': [
          { from: '08:00', to: '12:00' },
          { from: '11:00', to: '13:00' },
        ],
      }),
    ).toHaveLength(1);
    expect(openingHoursProblems({ '1': [{ from: '08:00', to: '24:00' }] })).toEqual([]);
  });

  it('counts expected vehicles from now on, with the peak after a return', () => {
    const flows = [
      { bookingId: 1, atMs: 100, delta: 1 as const },
      { bookingId: 2, atMs: 200, delta: -1 as const },
      { bookingId: 3, atMs: 300, delta: 1 as const },
      { bookingId: 4, atMs: 400, delta: 1 as const },
    ];
    expect(expectedVehicles(1, flows, 150)).toEqual({ atMs: 2, peakAfter: 3 });
    expect(expectedVehicles(1, flows, 150, 4)).toEqual({ atMs: 2, peakAfter: 2 });
    expect(expectedVehicles(1, flows, 50)).toEqual({ atMs: 1, peakAfter: 3 });
  });

  it('serves a pool: named holds take their vehicle, vehicle-less ones the peak', () => {
    const holds = [
      { bookingId: 1, vehicleId: 10, startMs: 0, endMs: 100 },
      { bookingId: 2, vehicleId: null, startMs: 50, endMs: 150 },
      { bookingId: 3, vehicleId: null, startMs: 120, endMs: 200 },
    ];
    expect(poolRemaining([10, 11, 12], holds, { startMs: 60, endMs: 130 }).remaining).toBe(0);
    expect(poolRemaining([10, 11, 12], holds, { startMs: 160, endMs: 180 }).remaining).toBe(2);
    expect(poolRemaining([10, 11, 12], holds, { startMs: 60, endMs: 130 }, 2).remaining).toBe(1);
  });
});
