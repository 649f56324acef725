// The maintenance service's pure rules: the field route transition table and the stop optimiser.
import {
  fieldRouteRefusal,
  fieldRouteActions,
  fieldRouteStates,
  optimiseOrder,
  pathLengthKm,
} from '../domain/maintenance.js';

describe('rules (pure)', () => {
  it('route transitions follow the table', () => {
    const allowed: Record<string, string[]> = {
      START: ['PLANNED', 'PAUSED'],
      STOP: ['IN_PROGRESS'],
      COMPLETE: ['IN_PROGRESS', 'PAUSED'],
      CANCEL: ['PLANNED', 'IN_PROGRESS', 'PAUSED'],
    };
    for (const action of fieldRouteActions)
      for (const state of fieldRouteStates)
        expect([action, state, fieldRouteRefusal(state, action) === undefined]).toEqual([
          action,
          state,
          allowed[action]!.includes(state),
        ]);
  });

  it('nearest neighbour then 2-opt, deterministic', () => {
    // From the start, nearest neighbour visits P3, P1, P2, P0 (2.445 km): back west to P0 at the end.
    // 2-opt reverses P1, P2, P0 into P0, P1, P2 (2.215 km, the shortest of all 24 orders).
    const start = { lat: 0, lng: 0 };
    const points = [
      { lat: 0.007, lng: 0.001 },
      { lat: 0.007, lng: 0.005 },
      { lat: 0.009, lng: 0.008 },
      { lat: 0.001, lng: 0.005 },
    ];
    const order = optimiseOrder(points, start);
    expect(order).toEqual([3, 0, 1, 2]);
    expect(optimiseOrder(points, start)).toEqual(order);
    const length = (indexes: number[]) =>
      pathLengthKm(
        indexes.map((index) => points[index]!),
        start,
      );
    expect(length(order)).toBeCloseTo(2.2145, 3);
    expect(length([3, 1, 2, 0])).toBeCloseTo(2.4446, 3);
    // Without a start the first point stays first.
    expect(optimiseOrder([points[2]!, points[0]!, points[1]!])[0]).toBe(0);
    expect(optimiseOrder([])).toEqual([]);
  });
});
