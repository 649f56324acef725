// Issues end to end over HTTP against the real database and the real payment workflows: the state table
// (allowed and refused moves, closing and reopening), the list's filters and paging headers, links (the
// branch and links completed from a rental, refused links, damages, tasks' taskObject.issueId), comments
// (only the author changes one: F302; F405), issue invoices (F202, F203, created and billed through a
// real payment workflow, charged against a deposit within what it has left: F204; a gateway refusal:
// F205), branch and business-unit denials, other tenants' ids and hostile input on every route.
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Deposit } from '../db/entities/Deposit.js';
import { Invoice } from '../db/entities/Invoice.js';
import { Issue } from '../db/entities/Issue.js';
import { IssueComment } from '../db/entities/IssueComment.js';
import { IssueInvoice } from '../db/entities/IssueInvoice.js';
import { Rental } from '../db/entities/Rental.js';
import { StoredFile } from '../db/entities/StoredFile.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Event } from '../db/entities/Event.js';
import { tenantEm } from '../db/orm.js';
import { issueStates, issueTransitionRefusal, type IssueState } from '../domain/issues.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { grantedClient, testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let rivalOperator: string;
let fleetOnly: string;
let vehicles: Vehicle[];
let rivalIssueId: number;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);

const createIssue = (body: Record<string, unknown>, token = operator) =>
  call('POST', back('/issues'), { token, body });

/** An issue about the first vehicle (plus `extra`); its id. */
async function newIssue(extra: Record<string, unknown> = {}): Promise<number> {
  const reply = await createIssue({
    title: 'Flat tyre',
    category: 'DAMAGED_VEHICLE',
    vehicleId: vehicles[0]!.id,
    ...extra,
  });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

/** An ENDED rental of the first vehicle by `customerId`, holding a deposit of `deposit` EUR (when given). */
async function endedRental(
  customerId: number,
  deposit?: string,
): Promise<{ rentalId: number; depositId: number | null }> {
  const em = session.em();
  const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  const now = new Date();
  const rental = em.create(Rental, {
    id,
    workflowId: `issues-test-rental-${id}`,
    state: 'ENDED',
    branch: em.getReference(Branch, session.seed.branchId),
    vehicle: em.getReference(Vehicle, vehicles[0]!.id),
    customer: em.getReference(Customer, customerId),
    reservedAt: new Date(now.getTime() - 3_600_000),
    startedAt: new Date(now.getTime() - 3_000_000),
    endedAt: now,
  });
  await em.flush();
  if (deposit === undefined) return { rentalId: id, depositId: null };
  const row = em.create(Deposit, {
    rental,
    customer: em.getReference(Customer, customerId),
    businessUnit: em.getReference(BusinessUnit, session.seed.businessUnitId),
    amount: deposit,
    currency: 'EUR',
    heldAt: now,
    idempotencyKey: `issues-test-deposit-${id}`,
  });
  rental.deposit = row;
  await em.flush();
  return { rentalId: id, depositId: row.id };
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalissue', name: 'Rival Issues' } });
  ({ operatorToken: operator, rivalOperatorToken: rivalOperator } = session);
  vehicles = await session.em().find(Vehicle, { branch: session.seed.branchId }, { orderBy: { id: 'asc' } });
  fleetOnly = await grantedClient(session, { role: 'Fleet operations', branchId: session.seed.cityBranchId });
  const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
  rivalIssueId = (await rivalEm.findOneOrFail(Issue, { title: { $like: 'Front brake%' } })).id;
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('the issue state table', () => {
  const allowed: Record<IssueState, IssueState[]> = {
    CREATED: ['WAITING', 'IN_REPAIR', 'CLOSED'],
    WAITING: ['IN_REPAIR', 'CLOSED'],
    IN_REPAIR: ['WAITING', 'CLOSED'],
    CLOSED: ['CREATED'],
  };
  it.each(issueStates.flatMap((from) => issueStates.map((to) => [from, to] as const)))(
    '%s → %s',
    (from, to) => {
      expect(issueTransitionRefusal(from, to) === undefined).toBe(from === to || allowed[from].includes(to));
    },
  );
});

describe('issues over HTTP', () => {
  test('the seeded demo issue: damaged vehicle, its critical damage, two comments', async () => {
    const list = await call(
      'GET',
      back(
        `/issues?branchId=${session.seed.cityBranchId}&includeChildBranches=true&category=DAMAGED_VEHICLE`,
      ),
      { token: operator },
    );
    expect(list.status).toBe(200);
    const demo = list.body.find((issue: { title: string }) => issue.title.startsWith('Front brake'));
    expect(demo).toMatchObject({
      state: 'IN_REPAIR',
      open: true,
      commentCount: 2,
      vehicleId: vehicles[0]!.id,
    });
    expect(demo.damageIds).toHaveLength(1);
    const damage = await call('GET', back(`/damages/${demo.damageIds[0]}`), { token: operator });
    expect(damage.body).toMatchObject({ issueId: demo.id, severity: 'CRITICAL' });
  });

  test('lifecycle: create (branch from the vehicle), the allowed moves, refused ones, close and reopen', async () => {
    expectError(await createIssue({ title: 'Nowhere', category: 'FINE' }), 422, 'F201');
    const created = await createIssue({
      title: '  Parking fine Alexanderplatz ',
      category: 'FINE',
      vehicleId: vehicles[0]!.id,
      assignedTo: { userAuthId: 'crew-7', firstLastName: 'Kim Lee' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('Location')).toMatch(new RegExp(`/issues/${created.body.id}$`));
    expect(created.body).toMatchObject({
      branchId: vehicles[0]!.branch.id,
      title: 'Parking fine Alexanderplatz',
      state: 'CREATED',
      open: true,
      vehicleId: vehicles[0]!.id,
      guserId: null,
      assignedTo: { userAuthId: 'crew-7', firstLastName: 'Kim Lee' },
      createdBy: 'client:demo-operator',
      damageIds: [],
      invoiceIds: [],
      commentCount: 0,
      closedAt: null,
    });
    const id = created.body.id;
    const patch = (body: Record<string, unknown>) =>
      call('PATCH', back(`/issues/${id}`), { token: operator, body });
    expect((await patch({ state: 'WAITING' })).body.state).toBe('WAITING');
    expectError(await patch({ state: 'CREATED' }), 409, 'F100');
    expect((await patch({ state: 'IN_REPAIR', description: 'Objection filed' })).body).toMatchObject({
      state: 'IN_REPAIR',
      description: 'Objection filed',
    });
    const closed = await patch({ state: 'CLOSED' });
    expect(closed.body.closedAt).toEqual(expect.any(String));
    expectError(await patch({ title: 'Late edit' }), 409, 'F100');
    expectError(await patch({ state: 'WAITING' }), 409, 'F100');
    const reopened = await patch({ state: 'CREATED', category: 'PARKING' });
    expect(reopened.body).toMatchObject({ state: 'CREATED', category: 'PARKING', closedAt: null });
    expect((await call('GET', back(`/issues/${id}`), { token: operator })).body.state).toBe('CREATED');
  });

  test('the list: filters combine, paged with X-Total-* headers', async () => {
    const a = await newIssue({ title: 'Toll invoice A9', category: 'TOLL' });
    const b = await newIssue({ title: 'Toll invoice A10', category: 'TOLL', description: 'motorway 100%' });
    const ids = async (query: string) => {
      const reply = await call('GET', back(`/issues?branchId=${session.seed.branchId}&size=100&${query}`), {
        token: operator,
      });
      expect(reply.status).toBe(200);
      return reply.body.map((issue: { id: number }) => issue.id);
    };
    expect(await ids('category=TOLL')).toEqual([b, a]);
    expect(await ids('category=TOLL&searchText=a10')).toEqual([b]);
    expect(await ids('searchText=100%25')).toEqual([b]);
    expect(await ids('searchText=_')).toEqual([]);
    expect(await ids(`category=TOLL&state=CLOSED`)).toEqual([]);
    expect(await ids(`category=TOLL&vehicleId=${vehicles[1]!.id}`)).toEqual([]);
    const page = await call(
      'GET',
      back(`/issues?branchId=${session.seed.branchId}&category=TOLL&size=1&page=1`),
      { token: operator },
    );
    expect(page.body.map((issue: { id: number }) => issue.id)).toEqual([a]);
    expect(page.headers.get('X-Total-Count')).toBe('2');
    expect(page.headers.get('X-Total-Pages')).toBe('2');
    expect(page.headers.get('X-Page-Number')).toBe('1');
    expect(page.headers.get('X-Page-Size')).toBe('1');
    // The city branch sees its district's issues only with includeChildBranches.
    const city = `branchId=${session.seed.cityBranchId}&category=TOLL`;
    expect((await call('GET', back(`/issues?${city}`), { token: operator })).body).toEqual([]);
    expect(
      (await call('GET', back(`/issues?${city}&includeChildBranches=true`), { token: operator })).body,
    ).toHaveLength(2);
  });

  test('links: completed from the rental, refused when they do not exist or do not fit', async () => {
    const [anna, ben] = session.seed.customerIds as [number, number];
    const { rentalId, depositId } = await endedRental(anna, '20.00');
    const created = await createIssue({ title: 'Helmet missing', category: 'MISSING_PARTS', rentalId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      branchId: session.seed.branchId,
      rentalId,
      vehicleId: vehicles[0]!.id,
      guserId: anna,
      depositId,
    });
    const other = await endedRental(ben, '5.00');
    for (const body of [
      { rentalId, depositId: other.depositId },
      { rentalId, vehicleId: vehicles[1]!.id },
      { vehicleId: vehicles[0]!.id, guserId: 99_999_999 },
      { vehicleId: vehicles[0]!.id, bookingId: 99_999_999 },
      { vehicleId: vehicles[0]!.id, costCenterId: 99_999_999 },
      { vehicleId: vehicles[0]!.id, userGroupId: 99_999_999 },
      { branchId: session.seed.branchId, rentalId: 99_999_999 },
    ])
      expectError(await createIssue({ title: 'Bad link', category: 'CORRECTION', ...body }), 422, 'F101');
    expectError(
      await createIssue({ title: 'Unknown rental', category: 'CORRECTION', rentalId: 99_999_999 }),
      422,
      'F101',
    );
    const id = created.body.id;
    const changed = await call('PATCH', back(`/issues/${id}`), {
      token: operator,
      body: { guserId: ben, depositId: null },
    });
    expect(changed.body).toMatchObject({ guserId: ben, depositId: null, rentalId });
    expectError(
      await call('PATCH', back(`/issues/${id}`), { token: operator, body: { depositId: other.depositId } }),
      422,
      'F101',
    );
  });

  test('damages: linked once, shown on the damage, unlinked; tasks name an issue', async () => {
    const damage = await call('POST', back('/damages'), {
      token: operator,
      body: { vehicleId: vehicles[1]!.id, part: 'mirror' },
    });
    const damageId = damage.body.id;
    const first = await newIssue();
    const second = await newIssue();
    const link = (issueId: number) =>
      call('POST', back(`/issues/${issueId}/damages`), { token: operator, body: { damageId } });
    expect((await link(first)).body.damageIds).toEqual([damageId]);
    expect((await link(first)).status).toBe(200);
    expect((await call('GET', back(`/damages/${damageId}`), { token: operator })).body.issueId).toBe(first);
    expectError(await link(second), 409, 'F102');
    expectError(
      await call('POST', back(`/issues/${first}/damages`), {
        token: operator,
        body: { damageId: 99_999_999 },
      }),
      422,
      'F101',
    );
    expect(
      (await call('DELETE', back(`/issues/${first}/damages/${damageId}`), { token: operator })).status,
    ).toBe(204);
    expectError(
      await call('DELETE', back(`/issues/${first}/damages/${damageId}`), { token: operator }),
      404,
      'DM404',
    );
    expect((await link(second)).body.damageIds).toEqual([damageId]);

    const task = await call('POST', back('/tasks'), {
      token: operator,
      body: {
        taskData: { title: 'Fix the mirror', branchId: session.seed.branchId },
        taskObject: { issueId: second },
      },
    });
    expect(task.status).toBe(201);
    expect(task.body.taskObject.issueId).toBe(second);
    const cleared = await call('PATCH', back(`/tasks/${task.body.id}`), {
      token: operator,
      body: { taskObject: { issueId: null } },
    });
    expect(cleared.body.taskObject.issueId).toBeNull();
    expectError(
      await call('PATCH', back(`/tasks/${task.body.id}`), {
        token: operator,
        body: { taskObject: { issueId: rivalIssueId } },
      }),
      422,
      'TK102',
    );
  });

  test('comments: anyone comments, only the author changes or deletes (F302), F405', async () => {
    const issueId = await newIssue();
    const path = back(`/issues/${issueId}/comments`);
    const created = await call('POST', path, { token: operator, body: { text: 'Called the customer' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      issueId,
      author: { userAuthId: 'client:demo-operator' },
      text: 'Called the customer',
      editedAt: null,
    });
    const commentId = created.body.id;
    const edited = await call('PATCH', `${path}/${commentId}`, {
      token: operator,
      body: { text: 'Called the customer twice' },
    });
    expect(edited.body).toMatchObject({ text: 'Called the customer twice', editedAt: expect.any(String) });
    await call('POST', path, { token: operator, body: { text: 'Second' } });
    const list = await call('GET', `${path}?size=1&page=0`, { token: operator });
    expect(list.body.map((c: { id: number }) => c.id)).toEqual([commentId]);
    expect(list.headers.get('X-Total-Count')).toBe('2');
    // Another author's comment (the demo issue's second, by the crew).
    const demo = await session.em().findOneOrFail(Issue, { title: { $like: 'Front brake%' } });
    const crew = await session
      .em()
      .findOneOrFail(IssueComment, { issue: demo.id, authorUserAuthId: 'seed-crew' });
    const crewPath = back(`/issues/${demo.id}/comments/${crew.id}`);
    expectError(await call('PATCH', crewPath, { token: operator, body: { text: 'Mine now' } }), 403, 'F302');
    expectError(await call('DELETE', crewPath, { token: operator }), 403, 'F302');
    // Files: only onto one's own comments (F301 before anything else), uploaded first (L404).
    const unknownFile = '00000000-0000-4000-8000-000000000000';
    expectError(
      await call('PATCH', crewPath, { token: operator, body: { files: [unknownFile] } }),
      403,
      'F301',
    );
    expectError(
      await call('PATCH', `${path}/${commentId}`, { token: operator, body: { files: [unknownFile] } }),
      404,
      'L404',
    );
    // A stored file row as an upload (POST /files, the files domain's suites) leaves it: linking is ours.
    const { randomUUID } = await import('node:crypto');
    const [uuid, other] = [randomUUID(), randomUUID()];
    const files = session.em();
    for (const id of [uuid, other])
      files.create(StoredFile, {
        uuid: id,
        branchId: session.seed.branchId,
        uploadedBy: 'client:demo-operator',
        fileName: 'brake.jpg',
        contentType: 'image/jpeg',
        size: 18,
        sha256: '0'.repeat(64),
        objectKey: `test/${id}`,
      });
    await files.flush();
    const photo = await call('POST', path, { token: operator, body: { text: 'Photo', files: [uuid] } });
    expect(photo.status).toBe(201);
    expect(photo.body.files).toEqual([expect.objectContaining({ uuid, contentType: 'image/jpeg' })]);
    expectError(
      await call('POST', path, { token: operator, body: { text: 'Again', files: [uuid, uuid] } }),
      409,
      'L407',
    );
    const replaced = await call('PATCH', `${path}/${photo.body.id}`, {
      token: operator,
      body: { files: [other] },
    });
    expect(replaced.body.files.map((file: { uuid: string }) => file.uuid)).toEqual([other]);
    expect((await call('DELETE', `${path}/${photo.body.id}`, { token: operator })).status).toBe(204);
    // A comment of another issue through this issue's path, or none at all.
    expectError(
      await call('PATCH', `${path}/${crew.id}`, { token: operator, body: { text: 'x' } }),
      404,
      'F405',
    );
    expectError(await call('DELETE', `${path}/99999999`, { token: operator }), 404, 'F405');
    expect((await call('DELETE', `${path}/${commentId}`, { token: operator })).status).toBe(204);
    expectError(await call('DELETE', `${path}/${commentId}`, { token: operator }), 404, 'F405');
    expect((await call('GET', back(`/issues/${issueId}`), { token: operator })).body.commentCount).toBe(1);
  });
});

describe('issue invoices', () => {
  const invoicesOf = (issueId: number) => back(`/issues/${issueId}/invoices`);
  const charge = (issueId: number, gross: string) =>
    call('POST', invoicesOf(issueId), {
      token: operator,
      body: { lines: [{ description: 'Damage fee', gross }] },
    });
  const bill = (issueId: number, invoiceId: number, query = '') =>
    call('POST', back(`/issues/${issueId}/invoices/${invoiceId}/bill${query}`), { token: operator });

  test('created for the affected customer and billed through a real payment workflow', async () => {
    expectError(await charge(await newIssue(), '10.00'), 422, 'F202');
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const issueId = await newIssue({ guserId: customerId, category: 'ACCIDENT' });
    const created = await call('POST', invoicesOf(issueId), {
      token: operator,
      body: {
        lines: [
          { description: 'Towing', gross: '80.00' },
          { description: 'Handling', net: '10.00', quantity: '2' },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      state: 'OPEN',
      type: 'REGULAR',
      guserId: customerId,
      businessUnitId: session.seed.businessUnitId,
      totals: { net: '77.23', tax: '14.67', gross: '91.90' },
      rentalId: null,
    });
    expect(created.body.title).toBe(`Issue ${issueId}: Flat tyre`);
    const invoiceId = created.body.id;
    // Its INVOICE_CREATED (a platform webhook) carries the totals the lines made.
    const [createdEvent] = await tenantEm(session.stack.backend.orm, session.seed.tenant).find(Event, {
      type: 'INVOICE_CREATED',
      payload: { invoiceId },
    });
    expect(createdEvent?.payload).toMatchObject({ invoiceId, totalGross: '91.90', refundedInvoiceId: null });
    expect((await call('GET', back(`/issues/${issueId}`), { token: operator })).body.invoiceIds).toEqual([
      invoiceId,
    ]);
    expect(
      (await call('GET', invoicesOf(issueId), { token: operator })).body.map((i: { id: number }) => i.id),
    ).toEqual([invoiceId]);

    // Only the issue's own invoices are billed here.
    const stranger = await charge(await newIssue({ guserId: customerId }), '1.00');
    expectError(await bill(issueId, stranger.body.id), 409, 'F203');
    expectError(await bill(issueId, 99_999_999), 409, 'F203');

    const billed = await bill(issueId, invoiceId);
    expect(billed.status).toBe(200);
    expect(billed.body.state).toBe('PAID');
    expect(billed.body.payments).toEqual([expect.objectContaining({ state: 'PAID' })]);
    expectError(await bill(issueId, invoiceId), 409, 'I121');
  }, 60_000);

  test('against the deposit: within what it has left (F204 beyond, released, none); a declined card is F205', async () => {
    const customerId = await testCustomer(session, { token: 'tok_sandbox_visa' });
    const { rentalId, depositId } = await endedRental(customerId, '50.00');
    const issueId = await newIssue({ rentalId, vehicleId: undefined, category: 'DAMAGED_VEHICLE' });
    expect((await call('GET', back(`/issues/${issueId}`), { token: operator })).body.depositId).toBe(
      depositId,
    );
    const first = (await charge(issueId, '30.00')).body.id;
    const second = (await charge(issueId, '30.00')).body.id;
    expect((await bill(issueId, first, '?chargeAgainstDeposit=true')).body.state).toBe('PAID');
    expectError(await bill(issueId, second, '?chargeAgainstDeposit=true'), 422, 'F204');
    // The refused bill left the invoice OPEN and took nothing from the deposit.
    const em = session.em();
    expect((await em.findOneOrFail(Invoice, second)).state).toBe('OPEN');
    const booked = await em.find(IssueInvoice, { depositId }, { refresh: true });
    expect(booked.map((row) => [row.invoice.id, row.depositAmount])).toEqual([[first, '30.00']]);
    const third = (await charge(issueId, '20.00')).body.id;
    await em.nativeUpdate(Deposit, { id: depositId! }, { state: 'RELEASED' });
    expectError(await bill(issueId, third, '?chargeAgainstDeposit=true'), 422, 'F204');
    // Without the deposit the same invoice bills normally.
    expect((await bill(issueId, second)).body.state).toBe('PAID');
    const noDeposit = await newIssue({ guserId: customerId });
    expectError(
      await bill(noDeposit, (await charge(noDeposit, '5.00')).body.id, '?chargeAgainstDeposit=true'),
      422,
      'F204',
    );

    const stolen = await testCustomer(session, { token: 'tok_sandbox_stolen_card' });
    const declinedIssue = await newIssue({ guserId: stolen });
    const declined = (await charge(declinedIssue, '12.00')).body.id;
    expectError(await bill(declinedIssue, declined), 422, 'F205');
    expect((await session.em().findOneOrFail(Invoice, declined, { refresh: true })).state).toBe(
      'EXCEPTION_PAYING',
    );
  }, 60_000);
});

describe('denials and hostile input', () => {
  test('branch scope, permissions, business units and other tenants', async () => {
    const issueId = await newIssue();
    // A sibling branch the operator holds no role on.
    expectError(
      await createIssue({ title: 'x', category: 'FINE', branchId: session.seed.otherBranchId }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/issues?branchId=${session.seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    const setup = session.em();
    const elsewhere = setup.create(Issue, {
      branchId: session.seed.otherBranchId,
      title: 'Elsewhere',
      category: 'DELIVERY',
      createdBy: 'test',
    });
    await setup.flush();
    for (const [method, path, body] of [
      ['GET', `/issues/${elsewhere.id}`],
      ['PATCH', `/issues/${elsewhere.id}`, { title: 'x' }],
      ['GET', `/issues/${elsewhere.id}/comments`],
      ['POST', `/issues/${elsewhere.id}/comments`, { text: 'x' }],
    ] as [string, string, unknown?][])
      expectError(await call(method, back(path), { token: operator, body }), 403, 'AUTH002');
    // Operations without finance: the issue yes, its invoices no.
    expect((await call('GET', back(`/issues/${issueId}`), { token: fleetOnly })).status).toBe(200);
    expectError(await call('GET', back(`/issues/${issueId}/invoices`), { token: fleetOnly }), 403, 'AUTH002');
    expectError(
      await call('POST', back(`/issues/${issueId}/invoices`), {
        token: fleetOnly,
        body: { lines: [{ description: 'x', gross: '1.00' }] },
      }),
      403,
      'AUTH002',
    );
    // Another tenant's issue is not found, whoever asks.
    for (const [method, path, body] of [
      ['GET', `/issues/${rivalIssueId}`],
      ['PATCH', `/issues/${rivalIssueId}`, { title: 'x' }],
      ['GET', `/issues/${rivalIssueId}/comments`],
      ['POST', `/issues/${rivalIssueId}/comments`, { text: 'x' }],
      ['POST', `/issues/${rivalIssueId}/damages`, { damageId: 1 }],
      ['GET', `/issues/${rivalIssueId}/invoices`],
      ['POST', `/issues/${rivalIssueId}/invoices/1/bill`],
    ] as [string, string, unknown?][])
      expectError(await call(method, back(path), { token: operator, body }), 404, 'F404');
    expectError(
      await call('GET', `/v1/${session.rival.tenant}/back/issues/${issueId}`, { token: rivalOperator }),
      404,
      'F404',
    );
    // The rival's operator, in its own tenant, naming our vehicle: unknown there.
    expectError(
      await call('POST', `/v1/${session.rival.tenant}/back/issues`, {
        token: rivalOperator,
        body: { title: 'x', category: 'FINE', vehicleId: vehicles[0]!.id },
      }),
      422,
      'F101',
    );
    expectError(await call('GET', back(`/issues/${issueId}`)), 401, 'JWT006');
  });

  test('hostile input on every route answers 400 0022', async () => {
    const issueId = await newIssue();
    const nul = 'a\u0000b';
    const cases: [string, string, unknown?][] = [
      ['GET', '/issues?branchId=0x1'],
      ['GET', '/issues?branchId=1e3'],
      ['GET', `/issues?branchId=${session.seed.branchId}&state=OPEN`],
      ['GET', `/issues?branchId=${session.seed.branchId}&searchText=${encodeURIComponent(nul)}`],
      ['GET', `/issues?branchId=${session.seed.branchId}&size=0`],
      ['GET', '/issues/0x1'],
      ['GET', '/issues/1e3'],
      ['GET', '/issues/0'],
      ['GET', '/issues/2147483648'],
      ['POST', '/issues', { title: nul, category: 'FINE', vehicleId: vehicles[0]!.id }],
      ['POST', '/issues', { title: '   ', category: 'FINE', vehicleId: vehicles[0]!.id }],
      ['POST', '/issues', { title: 'x', category: 'fines', vehicleId: vehicles[0]!.id }],
      ['POST', '/issues', { title: 'x', category: 'FINE', vehicleId: '1' }],
      ['POST', '/issues', { title: 'x', category: 'FINE', vehicleId: 1.5 }],
      ['POST', '/issues', { title: 'x', category: 'FINE', vehicleId: vehicles[0]!.id, extra: 1 }],
      ['POST', '/issues', { title: 'x'.repeat(201), category: 'FINE', vehicleId: vehicles[0]!.id }],
      ['POST', '/issues', []],
      ['PATCH', `/issues/${issueId}`, {}],
      ['PATCH', `/issues/${issueId}`, { state: 'OPEN' }],
      ['PATCH', `/issues/${issueId}`, { description: nul }],
      ['PATCH', `/issues/${issueId}`, { assignedTo: { userAuthId: '' } }],
      ['POST', `/issues/${issueId}/damages`, { damageId: '0x1' }],
      ['POST', `/issues/${issueId}/damages`, {}],
      ['DELETE', `/issues/${issueId}/damages/abc`],
      ['GET', `/issues/${issueId}/comments?page=-1`],
      ['POST', `/issues/${issueId}/comments`, { text: nul }],
      ['POST', `/issues/${issueId}/comments`, { text: '' }],
      ['POST', `/issues/${issueId}/comments`, { text: 'x'.repeat(4001) }],
      ['PATCH', `/issues/${issueId}/comments/1`, {}],
      ['POST', `/issues/${issueId}/comments`, { text: 'x', files: ['not-a-uuid'] }],
      ['POST', `/issues/${issueId}/comments`, { text: 'x', files: 'x' }],
      ['DELETE', `/issues/${issueId}/comments/1e3`],
      ['POST', `/issues/${issueId}/invoices`, { lines: [] }],
      ['POST', `/issues/${issueId}/invoices`, { lines: [{ description: 'x', gross: '1e3' }] }],
      ['POST', `/issues/${issueId}/invoices`, { lines: [{ description: 'x', gross: '0x1' }] }],
      ['POST', `/issues/${issueId}/invoices`, { lines: [{ description: 'x', gross: 12.5 }] }],
      ['POST', `/issues/${issueId}/invoices`, { lines: [{ description: nul, gross: '1.00' }] }],
      ['POST', `/issues/${issueId}/invoices/0x1/bill`],
      ['POST', `/issues/${issueId}/invoices/1/bill?chargeAgainstDeposit=maybe`],
    ];
    for (const [method, path, body] of cases) {
      const reply = await call(method, back(path), { token: operator, body });
      expect([path, reply.status, reply.body?.errorCode]).toEqual([path, 400, '0022']);
    }
  });
});
