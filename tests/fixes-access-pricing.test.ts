// Access and pricing fixes of issue 21, each case failing before its fix: the tenant-wide customer and
// verification lists answer without `branchId` (for callers holding CUSTOMER_READ somewhere), and deleting
// a pricing bundle ends the publication workflow of a version still waiting for its effective date.
import { ApiClient } from '../db/entities/ApiClient.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { hashSecret } from '../platform/secrets.js';
import { pricingVersionWorkflowId } from '../workflows/pricing.messages.js';
import { expectError, type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let operatorToken: string;

beforeAll(async () => {
  session = await startSession();
  ({ stack, operatorToken } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A token of a new API client holding only the Finance role on the business unit: no CUSTOMER_READ anywhere. */
async function financeOnlyToken(): Promise<string> {
  const { seed } = session;
  const em = session.em();
  const finance = await em.findOneOrFail(Role, { name: 'Finance' });
  expect(finance.permissions).not.toContain('CUSTOMER_READ');
  const client = em.create(ApiClient, {
    clientId: 'finance-only',
    name: 'Finance only',
    secretHash: await hashSecret('finance-only-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role: finance,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    businessUnit: seed.businessUnitId,
  });
  await em.flush();
  return stack.token(seed.tenant, { clientId: 'finance-only', clientSecret: 'finance-only-secret' });
}

describe('customers and their verifications are tenant-wide: branchId is optional', () => {
  test('GET /customers without branchId answers the list it answers with one', async () => {
    const { branchId } = session.seed;
    const withBranch = await stack.call('GET', stack.back(`/customers?branchId=${branchId}&size=100`), {
      token: operatorToken,
    });
    const withoutBranch = await stack.call('GET', stack.back('/customers?size=100'), {
      token: operatorToken,
    });
    expect(withBranch.status).toBe(200);
    expect(withoutBranch.status).toBe(200);
    expect(withoutBranch.body).toEqual(withBranch.body);
    expect(withoutBranch.body.length).toBeGreaterThanOrEqual(4);
    expect(withoutBranch.headers.get('x-total-count')).toBe(withBranch.headers.get('x-total-count'));
    const byEmail = await stack.call('GET', stack.back('/customers?email=ANNA.SCHMIDT@example.com'), {
      token: operatorToken,
    });
    expect(byEmail.body.map((customer: { email: string }) => customer.email)).toEqual([
      'anna.schmidt@example.com',
    ]);
  });

  test('GET /verification without branchId answers what it answers with one', async () => {
    const { branchId, customerIds } = session.seed;
    for (const customerId of customerIds) {
      const withBranch = await stack.call(
        'GET',
        stack.back(`/verification?guserId=${customerId}&branchId=${branchId}`),
        { token: operatorToken },
      );
      const withoutBranch = await stack.call('GET', stack.back(`/verification?guserId=${customerId}`), {
        token: operatorToken,
      });
      expect(withBranch.status).toBe(200);
      expect(withoutBranch.status).toBe(200);
      expect(withoutBranch.body).toEqual(withBranch.body);
    }
  });

  test('with branchId the branch is still checked: unknown is B404', async () => {
    expectError(
      await stack.call('GET', stack.back('/customers?branchId=987654321'), { token: operatorToken }),
      404,
      'B404',
    );
    const customerId = session.seed.customerIds[0];
    expectError(
      await stack.call('GET', stack.back(`/verification?guserId=${customerId}&branchId=987654321`), {
        token: operatorToken,
      }),
      404,
      'B404',
    );
  });

  test('a caller holding CUSTOMER_READ nowhere is refused, with or without branchId', async () => {
    const token = await financeOnlyToken();
    const { branchId, customerIds } = session.seed;
    for (const path of [
      '/customers',
      `/customers?branchId=${branchId}`,
      `/verification?guserId=${customerIds[0]}`,
      `/verification?guserId=${customerIds[0]}&branchId=${branchId}`,
    ])
      expectError(await stack.call('GET', stack.back(path), { token }), 403, 'AUTH002');
  });
});

/** A new on-demand bundle with one DRAFT version; answers both ids. */
async function bundleWithDraft(name: string): Promise<{ bundleId: number; versionId: number }> {
  const bundle = await stack.call('POST', stack.back('/pricing-bundles'), {
    token: operatorToken,
    body: { name, type: 'ON_DEMAND_LEGACY', businessUnitId: session.seed.businessUnitId },
  });
  expect(bundle.status).toBe(201);
  const version = await stack.call('POST', stack.back(`/pricing-bundles/${bundle.body.id}/versions`), {
    token: operatorToken,
    body: {
      freeFloatingPricingMode: 'ENDING_TIMESLOT',
      onDemand: {
        unlockFee: '1.00',
        reservationPerMinute: '0.10',
        timeSlots: [{ fromMinute: 0, drivingPerMinute: '0.30', parkingPerMinute: '0.10' }],
        distancePerUnit: '0',
        includedDistance: 0,
        billingIncrementMinutes: 1,
        minimumPrice: '0',
      },
    },
  });
  expect(version.status).toBe(201);
  return { bundleId: bundle.body.id, versionId: version.body.id };
}

async function publish(bundleId: number, versionId: number, effectiveFrom: string) {
  const published = await stack.call(
    'POST',
    stack.back(`/pricing-bundles/${bundleId}/versions/${versionId}/publish`),
    { token: operatorToken, body: { effectiveFrom } },
  );
  expect(published.body).toMatchObject({ status: 'PUBLISHED', effectiveFrom });
}

const deleteBundle = (bundleId: number) =>
  stack.call('DELETE', stack.back(`/pricing-bundles/${bundleId}`), { token: operatorToken });

describe('deleting a pricing bundle ends the publications of its versions', () => {
  test('a version waiting for its effective date: the delete cancels its workflow', async () => {
    const { bundleId, versionId } = await bundleWithDraft('Scheduled then deleted');
    await publish(bundleId, versionId, new Date(Date.now() + 86_400_000).toISOString());
    const handle = stack.backend.client.workflow.getHandle(
      pricingVersionWorkflowId(session.seed.tenant, versionId),
    );
    expect((await handle.describe()).status.name).toBe('RUNNING');

    expect((await deleteBundle(bundleId)).status).toBe(204);

    // The cancel request is answered at once; the worker ends the run right after.
    const deadline = Date.now() + 15_000;
    let status = (await handle.describe()).status.name;
    while (status === 'RUNNING' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await handle.describe()).status.name;
    }
    expect(status).toBe('CANCELLED');
    const archived = await session.em().findOneOrFail(PricingBundleVersion, versionId);
    expect(archived.status).toBe('ARCHIVED');
  });

  test('versions whose workflow ended, or that never had one, are deleted as before', async () => {
    const applied = await bundleWithDraft('Applied then deleted');
    await publish(applied.bundleId, applied.versionId, new Date().toISOString());
    const handle = stack.backend.client.workflow.getHandle(
      pricingVersionWorkflowId(session.seed.tenant, applied.versionId),
    );
    await handle.result();
    expect((await deleteBundle(applied.bundleId)).status).toBe(204);
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    const draft = await bundleWithDraft('Draft then deleted');
    expect((await deleteBundle(draft.bundleId)).status).toBe(204);
    expect(await session.em().findOne(PricingBundleVersion, draft.versionId)).toBeNull();
  });
});
