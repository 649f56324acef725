// Business accounts end to end: the operator's groups (billing rules, members, scope), and in the app
// the members' view, management by managers, cost centers, joining by code with or without approval,
// leaving, and accounts customers create themselves.
import { type SeededTenant } from '../db/seed.js';
import { demoCustomer, demoGroupCode } from '../db/seed/customers.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { type CustomerSession, startCustomerSession, uniqueEmail } from './support/customers.js';

let session: CustomerSession;
let stack: HttpStack;
let operatorToken: string;
let appToken: string;
let rival: SeededTenant;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const auth = (path: string) => session.auth(path);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => session.em();

beforeAll(async () => {
  session = await startCustomerSession();
  ({ stack, operatorToken, appClientToken: appToken, rival } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('business accounts', () => {
  const customerToken = (id: number) => session.customerToken(id);
  async function acme() {
    const { UserGroup } = await import('../db/entities/UserGroup.js');
    return em().findOneOrFail(UserGroup, { code: demoGroupCode });
  }
  async function newCustomer(name: string, email = uniqueEmail(name)) {
    const reply = await call('POST', auth('/customer/sign-up'), {
      body: {
        email,
        password: 'secret-pass-1',
        firstName: name,
        lastName: 'Test',
        acceptTnc: true,
      },
    });
    return reply.body as { access_token: string; customerId: number };
  }

  test('operator: create ignores billingCycle, UG131 receipts rule, one group per customer, maximum members, scope', async () => {
    const { cityBranchId, otherBranchId, customerIds } = stack.backend.seed;
    const [anna, ben, clara, deniz] = customerIds as [number, number, number, number];
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Receipts', branchId: cityBranchId, useReceiptInsteadOfInvoice: true },
      }),
      422,
      'UG131',
    );
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Other', branchId: otherBranchId },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Dup', branchId: cityBranchId, ownerId: anna },
      }),
      409,
      'UG133',
    );
    const created = await call('POST', back('/groups'), {
      token: operatorToken,
      body: {
        name: 'Beta GmbH',
        branchId: cityBranchId,
        billingCycle: 'WEEKLY',
        houseNumber: '5a',
        addressAddition: 'Hinterhaus',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      billingCycle: 'MONTHLY',
      useReceiptInsteadOfInvoice: false,
      houseNumber: '5a',
      membersCount: 0,
      ownerId: null,
    });
    const id = created.body.id;
    const payg = await call('PATCH', back(`/groups/${id}`), {
      token: operatorToken,
      body: { billingCycle: 'PAY_AS_YOU_GO', useReceiptInsteadOfInvoice: true },
    });
    expect(payg.body).toMatchObject({ billingCycle: 'PAY_AS_YOU_GO', useReceiptInsteadOfInvoice: true });
    expectError(
      await call('PATCH', back(`/groups/${id}`), { token: operatorToken, body: { billingCycle: 'MONTHLY' } }),
      422,
      'UG131',
    );

    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [ben] },
      }),
      409,
      'UG133',
    );
    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [2147483647] },
      }),
      422,
      'UG408',
    );
    const added = await call('POST', back(`/groups/${id}/members`), {
      token: operatorToken,
      body: { customerIds: [clara] },
    });
    expect(added.body.map((m: { customer: { id: number } }) => m.customer.id)).toEqual([clara]);
    await call('PATCH', back(`/groups/${id}`), { token: operatorToken, body: { maxMembers: 1 } });
    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [deniz] },
      }),
      422,
      'UG132',
    );
    const members = await call('GET', back(`/groups/${(await acme()).id}/members?searchText=be`), {
      token: operatorToken,
    });
    expect(members.body.map((m: { customer: { firstName: string } }) => m.customer.firstName)).toEqual([
      'Ben',
    ]);
    const ofClara = await call('GET', back(`/customers/${clara}/groups?branchId=${cityBranchId}`), {
      token: operatorToken,
    });
    expect(ofClara.body).toMatchObject([{ state: 'ACTIVE', group: { id } }]);
    expect(
      (await call('DELETE', back(`/groups/${id}/members/${clara}`), { token: operatorToken })).status,
    ).toBe(204);
    expectError(
      await call('GET', back(`/groups/${id}`), {
        token: await stack.token(rival.tenant, demoOperatorClient),
      }),
      403,
      'AUTH002',
    );
    expectError(await call('GET', back('/groups/2147483647'), { token: operatorToken }), 404, 'UG404');
  });

  test('app: members see their account and cost centers, only managers manage, others learn nothing', async () => {
    const group = await acme();
    const [anna, ben] = stack.backend.seed.customerIds as [number, number];
    const annaToken = await customerToken(anna);
    const benToken = await customerToken(ben);
    const stranger = await newCustomer('Stranger');
    expect((await call('GET', front('/groups'), { token: benToken })).body).toMatchObject([
      { group: { code: demoGroupCode, costCenters: [{ code: 'OPS' }, { code: 'SALES' }] } },
    ]);
    expect(
      (await call('GET', front('/groups-management'), { token: annaToken })).body.map(
        (g: { id: number }) => g.id,
      ),
    ).toEqual([group.id]);
    expect((await call('GET', front('/groups-management'), { token: benToken })).body).toEqual([]);
    expectError(await call('GET', front(`/groups-management/${group.id}`), { token: benToken }), 403, 'A100');
    expectError(
      await call('GET', front(`/groups-management/${group.id}/members/${anna}`), { token: benToken }),
      403,
      'A100',
    );
    expectError(
      await call('GET', front(`/groups-management/${group.id}`), { token: stranger.access_token }),
      404,
      'UG404',
    );
    expectError(await call('GET', front(`/groups-management/${group.id}`), { token: appToken }), 401, '0001');

    const centers = await call('GET', front('/cost-centers'), { token: benToken });
    expect(centers.body.map((c: { code: string }) => c.code)).toEqual(['OPS', 'SALES']);
    expectError(
      await call('POST', front('/cost-centers'), { token: benToken, body: { code: 'LEGAL', name: 'Legal' } }),
      403,
      'A100',
    );
    const legal = await call('POST', front('/cost-centers'), {
      token: annaToken,
      body: { code: 'LEGAL', name: 'Legal' },
    });
    expect(legal.status).toBe(201);
    expectError(
      await call('POST', front('/cost-centers'), {
        token: annaToken,
        body: { code: 'LEGAL', name: 'Again' },
      }),
      409,
      'UG407',
    );
    expectError(
      await call('GET', front(`/cost-centers/${legal.body.id}`), { token: stranger.access_token }),
      404,
      'UG405',
    );
    const member = await call('PATCH', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: legal.body.id },
    });
    expect(member.body).toMatchObject({ costCenterId: legal.body.id, customer: { id: ben } });
    // PUT replaces both properties; leaving one out is a validation error.
    expectError(
      await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
        token: annaToken,
        body: { costCenterId: null },
      }),
      400,
      '0022',
    );
    const replaced = await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: null, canManage: false },
    });
    expect(replaced.body).toMatchObject({ costCenterId: null, canManage: false });
    await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: legal.body.id, canManage: false },
    });
    const defaulted = await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { defaultCostCenterId: legal.body.id },
    });
    expect(defaulted.body.defaultCostCenterId).toBe(legal.body.id);
    expectError(
      await call('PATCH', front(`/groups-management/${group.id}`), {
        token: annaToken,
        body: { billingCycle: 'WEEKLY' },
      }),
      400,
      '0022',
    );
    expect((await call('DELETE', front(`/cost-centers/${legal.body.id}`), { token: annaToken })).status).toBe(
      204,
    );
    expect(
      (await call('GET', front(`/groups-management/${group.id}`), { token: annaToken })).body
        .defaultCostCenterId,
    ).toBeNull();
  });

  test('app: join by code, one account per customer, approval requests, leave; terms must be accepted (U601)', async () => {
    const group = await acme();
    const [anna, , , deniz] = stack.backend.seed.customerIds as [number, number, number, number];
    const annaToken = await customerToken(anna);
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/join`), { token: await customerToken(deniz) }),
      422,
      'U601',
    );
    const joiner = await newCustomer('Joiner');
    const joined = await call('POST', front(`/groups/${demoGroupCode}/join`), { token: joiner.access_token });
    expect(joined.body).toMatchObject({ state: 'ACTIVE', group: { id: group.id } });
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/join`), { token: joiner.access_token }),
      409,
      'UG133',
    );
    expectError(
      await call('POST', front('/groups/NO-SUCH-CODE/join'), { token: joiner.access_token }),
      404,
      'UG404',
    );
    expect(
      (await call('POST', front(`/groups/${demoGroupCode}/leave`), { token: joiner.access_token })).status,
    ).toBe(204);
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/leave`), { token: annaToken }),
      403,
      'A100',
    );

    await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { joinRequiresApproval: true },
    });
    const pending = await call('POST', front(`/groups/${demoGroupCode}/join`), {
      token: joiner.access_token,
    });
    expect(pending.body.state).toBe('PENDING');
    expect((await call('GET', front('/groups/requests'), { token: joiner.access_token })).body).toHaveLength(
      1,
    );
    const requests = await call('GET', front(`/groups-management/${group.id}/requests`), {
      token: annaToken,
    });
    expect(requests.body.map((r: { customer: { id: number } }) => r.customer.id)).toEqual([
      joiner.customerId,
    ]);
    const accepted = await call(
      'PATCH',
      front(`/groups-management/${group.id}/requests/${requests.body[0].membershipId}`),
      {
        token: annaToken,
        body: { state: 'ACCEPTED' },
      },
    );
    expect(accepted.body.state).toBe('ACTIVE');
    await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { joinRequiresApproval: false },
    });

    const owner = await newCustomer('Owner');
    const own = await call('POST', front('/groups-management'), {
      token: owner.access_token,
      body: {
        name: 'Owner & Co',
        branchId: stack.backend.seed.branchId,
        houseNumber: '7',
        addressAddition: '2. OG',
      },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ ownerId: owner.customerId, membersCount: 1, billingCycle: 'MONTHLY' });
    // A customer of another account is invited like anyone (issue 33): no UG133 telling where she is.
    const added = await call('POST', front(`/groups-management/${own.body.id}/add-members`), {
      token: owner.access_token,
      body: { emails: [demoCustomer.email] },
    });
    expect(added.body).toEqual([{ email: demoCustomer.email, state: 'INVITED' }]);
    // The join code: the owner sets a new one; another account's code is taken; outsiders learn nothing.
    const recoded = await call('PATCH', front(`/groups-management/${own.body.id}/OWNER-CO-2027`), {
      token: owner.access_token,
    });
    expect(recoded.status).toBe(200);
    expect(recoded.body.code).toBe('OWNER-CO-2027');
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/${demoGroupCode}`), {
        token: owner.access_token,
      }),
      409,
      'UG410',
    );
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/bad%20code`), {
        token: owner.access_token,
      }),
      400,
      '0022',
    );
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/STOLEN-CODE`), {
        token: (await newCustomer('Outsider')).access_token,
      }),
      404,
      'UG404',
    );
    expect(
      (await call('DELETE', front(`/groups-management/${own.body.id}`), { token: owner.access_token }))
        .status,
    ).toBe(204);
  });
  test('issue 33: add-members invites: one answer for any address, no personal data, a member only by accepting', async () => {
    const owner = await newCustomer('Inviter');
    const own = await call('POST', front('/groups-management'), {
      token: owner.access_token,
      body: { name: 'Inviter & Co', branchId: stack.backend.seed.branchId },
    });
    expect(own.status).toBe(201);
    const invite = (emails: string[]) =>
      call('POST', front(`/groups-management/${own.body.id}/add-members`), {
        token: owner.access_token,
        body: { emails },
      });
    const inviteeEmail = uniqueEmail('invitee');
    const invitee = await newCustomer('Invitee', inviteeEmail);
    const declinerEmail = uniqueEmail('decliner');
    const decliner = await newCustomer('Decliner', declinerEmail);
    // Anna belongs to Acme; nobody has the last address.
    const addresses = [demoCustomer.email, inviteeEmail, declinerEmail, uniqueEmail('nobody')];
    const answer = await invite(addresses);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(addresses.map((email) => ({ email, state: 'INVITED' })));
    // One address at a time, again: the same answer whoever it is (and whether invited already).
    for (const email of addresses)
      expect((await invite([email])).body).toEqual([{ email, state: 'INVITED' }]);
    const members = async () =>
      (
        await call('GET', front(`/groups-management/${own.body.id}/members`), { token: owner.access_token })
      ).body.map((member: { customer: { id: number } }) => member.customer.id);
    // Nobody was added without consent.
    expect(await members()).toEqual([owner.customerId]);

    // The invitee finds the invitation among their requests and accepts it.
    const theirs = await call('GET', front('/groups/requests'), { token: invitee.access_token });
    expect(theirs.body).toEqual([
      expect.objectContaining({ state: 'INVITED', group: expect.objectContaining({ id: own.body.id }) }),
    ]);
    // Another customer cannot accept it; a join request is not its requester's to accept.
    expectError(
      await call('PATCH', front(`/groups/requests/${theirs.body[0].membershipId}`), {
        token: decliner.access_token,
        body: { state: 'ACCEPTED' },
      }),
      404,
      'UG405',
    );
    const accepted = await call('PATCH', front(`/groups/requests/${theirs.body[0].membershipId}`), {
      token: invitee.access_token,
      body: { state: 'ACCEPTED' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ state: 'ACTIVE', group: { id: own.body.id } });
    expect(await members()).toEqual([owner.customerId, invitee.customerId]);
    expect((await call('GET', front('/groups/requests'), { token: invitee.access_token })).body).toEqual([]);

    // Declining removes the invitation; the decliner is no member.
    const declined = (await call('GET', front('/groups/requests'), { token: decliner.access_token })).body;
    expect(declined).toHaveLength(1);
    expect(
      (
        await call('PATCH', front(`/groups/requests/${declined[0].membershipId}`), {
          token: decliner.access_token,
          body: { state: 'WITHDRAWN' },
        })
      ).status,
    ).toBe(204);
    expect(await members()).toEqual([owner.customerId, invitee.customerId]);

    // Anna still belongs to Acme alone and holds no invitation.
    const annaToken = await customerToken(stack.backend.seed.customerIds[0]!);
    const annas = (await call('GET', front('/groups'), { token: annaToken })).body;
    expect(annas.map((row: { group: { code: string } }) => row.group.code)).toEqual([demoGroupCode]);
    expect((await call('GET', front('/groups/requests'), { token: annaToken })).body).toEqual([]);
  });
});
