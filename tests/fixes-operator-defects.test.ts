// Operator defects of issue 35, each case failing before its fix: a malformed userAuthId of the
// completed-tasks read is 0022 (400) and an unknown one AUTH052 (404), not TK107 (35.14); the position of
// an app event of no branch is shown by GET /events and /analytics/userEvents under one rule, POSITION_LOG_READ
// tenant-wide (35.9); the seeded 500 km service counts from what the vehicle's odometer reads (35.5).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { configuredObjectStore } from '../composition/object-store.js';
import { Area } from '../db/entities/Area.js';
import { AreaType } from '../db/entities/AreaType.js';
import { Branch } from '../db/entities/Branch.js';
import { RecurringTask } from '../db/entities/RecurringTask.js';
import { VehicleTelemetry } from '../db/entities/VehicleTelemetry.js';
import { recordEvent } from '../db/events.js';
import { demoAdministratorClient } from '../db/seed/access.js';
import { expectError, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { exportRunWorkflowId } from '../workflows/export.messages.js';

let session: Session;
let stack: HttpStack;
let operatorToken: string;
let adminToken: string;

beforeAll(async () => {
  session = await startSession();
  ({ stack, operatorToken } = session);
  adminToken = await stack.token(session.seed.tenant, demoAdministratorClient);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A GET whose path is sent as written (fetch would resolve `..` segments before sending). */
function rawGet(path: string, token: string): Promise<Reply> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'GET',
        headers: { authorization: `Bearer ${token}` },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            headers: new Headers(response.headers as Record<string, string>),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('35.14 completed tasks of a user: malformed ids 400, unknown users 404', () => {
  const window = () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    const from = new Date(Date.now() - 7 * 86400_000).toISOString();
    return `startDate=${encodeURIComponent(from)}&endDate=${encodeURIComponent(to)}`;
  };
  const path = (userAuthId: string, query = `branchId=${session.seed.cityBranchId}&${window()}`) =>
    stack.back(`/tasks/user/${userAuthId}/completed-tasks?${query}`);

  test.each(['-1', '0', '..', '9223372036854775808', '%20seed-crew', 'seed-crew%20'])(
    '%s is malformed: 0022, whatever the window',
    async (userAuthId) => {
      expectError(await rawGet(path(userAuthId), operatorToken), 400, '0022');
      // The maintenance service's user reads take the same ids.
      expectError(
        await rawGet(
          `/v1/${session.seed.tenant}/maintenance/api/vehicle-maintenance-log/user/${userAuthId}/details?branchId=${session.seed.cityBranchId}`,
          operatorToken,
        ),
        400,
        '0022',
      );
      // A window TK107 would refuse does not hide the malformed id.
      expectError(
        await rawGet(
          path(
            userAuthId,
            `branchId=${session.seed.cityBranchId}&startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z`,
          ),
          operatorToken,
        ),
        400,
        '0022',
      );
    },
  );

  test('an unknown user is AUTH052; known ones (clients, operators, crews) answer their tasks', async () => {
    for (const unknown of ['operator:nobody', 'client:nobody', 'someone'])
      expectError(await rawGet(path(encodeURIComponent(unknown)), operatorToken), 404, 'AUTH052');
    const crew = await rawGet(path('seed-crew') + '&includeChildBranches=true', operatorToken);
    expect(crew.status).toBe(200);
    expect(crew.body.map((task: { taskData: { title: string } }) => task.taskData.title)).toEqual([
      'Swap the battery',
    ]);
    // An API client that completed nothing yet is known: an empty page.
    const client = await rawGet(path(encodeURIComponent('client:demo-admin')), operatorToken);
    expect(client.status).toBe(200);
    expect(client.body).toEqual([]);
  });
});

describe('35.9 the position of an app event of no branch: one rule for the event search and the analytics', () => {
  const position = { lat: 10.12345, lng: 10.12345 };
  let eventId: string;

  beforeAll(async () => {
    const em = session.em();
    const type = em.create(AreaType, {
      id: randomUUID(),
      name: 'Visibility notice',
      style: { color: '#000000', lineThickness: 1, opacity: 0.5 },
      policyTypes: ['NOTICE_AREA_POLICY'],
    });
    em.create(Area, {
      id: randomUUID(),
      name: 'Visibility area',
      branch: em.getReference(Branch, session.seed.cityBranchId),
      areaType: type,
      geofence: {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [10, 10],
              [10.5, 10],
              [10.5, 10.5],
              [10, 10.5],
              [10, 10],
            ],
          ],
        ],
      },
      status: 'ACTIVE',
      policies: [{ type: 'NOTICE_AREA_POLICY' }],
    });
    // An anonymous app event: no customer, no branch, a device position in the city's area.
    const event = recordEvent(em, {
      type: 'APP_START',
      createdAt: new Date(Date.now() - 10 * 60_000),
      position,
      branchId: null,
    });
    await em.flush();
    eventId = String(event.id);
  });

  const search = (token: string) =>
    stack.call('GET', stack.back(`/events?type=APP_START&size=200`), { token });
  const analytics = (token: string) =>
    stack.call('GET', stack.back(`/analytics/userEvents?branchId=${session.seed.cityBranchId}`), { token });
  const cellsNear = (reply: Reply) =>
    reply.body.filter((cell: { pos: { lat: number } }) => Math.abs(cell.pos.lat - 10.12) < 0.01);

  test('POSITION_LOG_READ on the city only: hidden in the search, rounded (≈ 1.1 km) in the analytics', async () => {
    const found = (await search(operatorToken)).body.find(
      (event: { id: number | string }) => String(event.id) === eventId,
    );
    expect(found).toBeDefined();
    expect(found.position).toBeNull();
    const cells = await analytics(operatorToken);
    expect(cells.status).toBe(200);
    expect(cellsNear(cells).map((cell: { pos: unknown }) => cell.pos)).toEqual([{ lat: 10.12, lng: 10.12 }]);
  });

  test('POSITION_LOG_READ on every branch: shown in both', async () => {
    const found = (await search(adminToken)).body.find(
      (event: { id: number | string }) => String(event.id) === eventId,
    );
    expect(found.position).toEqual(position);
    const cells = await analytics(adminToken);
    expect(cellsNear(cells).map((cell: { pos: unknown }) => cell.pos)).toEqual([
      { lat: 10.1235, lng: 10.1235 },
    ]);
  });
});

describe('35.5 the seeded 500 km service counts from what the odometer reads', () => {
  test('its baseline is the odometer the vehicle reports, so it comes due 500 km from now', async () => {
    const em = session.em();
    const service = await em.findOneOrFail(RecurringTask, { title: 'Service check every 500 km' });
    const vehicleId = service.vehicleId!;
    // The simulated device's first report, stored by the telemetry ingestor.
    const deadline = Date.now() + 60_000;
    while ((await session.em().count(VehicleTelemetry, { vehicleId })) === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const vehicle = await stack.call('GET', stack.back(`/vehicles/${vehicleId}`), { token: operatorToken });
    expect(vehicle.status).toBe(200);
    const recurring = await stack.call('GET', stack.back(`/tasks/recurring/${service.id}`), {
      token: operatorToken,
    });
    expect(recurring.status).toBe(200);
    const baseline: number = recurring.body.usage.baselineOdometerKm;
    const reading: number = vehicle.body.odometerKm;
    expect(recurring.body.usage.everyKm).toBe(500);
    expect(reading).toBeGreaterThan(0);
    // The device went on from the recorded reading (it stood still: within a kilometre of it).
    expect(reading).toBeGreaterThanOrEqual(baseline);
    expect(reading - baseline).toBeLessThan(1);
  });
});

describe('35.3 a run that really fails is FAILED with its reason, in the run log', () => {
  /** Waits for the run's workflow, then answers the run as the API shows it. */
  async function finishedRun(runId: number): Promise<Reply> {
    const handle = session.backend.client.workflow.getHandle(exportRunWorkflowId(session.seed.tenant, runId));
    for (let tries = 0; ; tries += 1) {
      try {
        await handle.result();
        break;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError) || tries >= 300) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return stack.call('GET', stack.back(`/exports/runs/${runId}`), { token: operatorToken });
  }

  test("the object store refuses the file: EX500 with the store's reason, no file, nobody notified", async () => {
    // An object where the tenant's export folder would be: the store cannot write exports/{tenant}/{run}.csv.
    const store = configuredObjectStore();
    const blocker = `exports/${session.seed.tenant}`;
    await store.put(blocker, new TextEncoder().encode('not a folder'), { contentType: 'text/plain' });
    try {
      const created = await stack.call('POST', stack.back('/exports'), {
        token: operatorToken,
        body: {
          name: 'Rentals that cannot be stored',
          queryId: 1,
          branchIds: [session.seed.cityBranchId],
          period: { lastDays: 30 },
          notifications: { emails: ['ops@example.com'] },
        },
      });
      expect(created.status).toBe(201);
      // While the write is retried the run is RUNNING and says why its last attempt failed.
      const runId: number = created.body.lastRunId;
      let running: Reply | undefined;
      for (let tries = 0; tries < 600; tries += 1) {
        running = await stack.call('GET', stack.back(`/exports/runs/${runId}`), { token: operatorToken });
        if (running.body.state !== 'RUNNING' || running.body.errorMessage) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(running!.body).toMatchObject({
        state: 'RUNNING',
        errorCode: null,
        errorMessage: expect.stringMatching(/^attempt 1 failed, retrying: ./),
      });
      const run = await finishedRun(runId);
      expect(run.body).toMatchObject({
        state: 'FAILED',
        errorCode: 'EX500',
        exportUrl: null,
        rowCount: null,
        expirationDate: null,
      });
      // The reason is the store's own, not a retry note.
      expect(run.body.errorMessage).toEqual(expect.stringMatching(/^(?!attempt )./));
      expect(run.body.completedAt).toEqual(expect.any(String));
      const log = await stack.call('GET', stack.back(`/exports/${created.body.id}/runs`), {
        token: operatorToken,
      });
      expect(log.body[0]).toEqual(run.body);
      const deliveries = await stack.call('GET', stack.back(`/exports/runs/${run.body.id}/deliveries`), {
        token: operatorToken,
      });
      expect(deliveries.body).toEqual([]);
    } finally {
      await store.delete(blocker);
    }
  }, 300_000);
});
