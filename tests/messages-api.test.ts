// The operator's management of localized messages over HTTP against the real database: every verb
// (list and its filters with paging headers, create, read, update, delete, bulk import), the codes M101
// (a key and locale twice), M102 (reserved keys) and M404, locale canonicalisation, tenant-wide write
// access and read access anywhere, another tenant's ids, and hostile input on every route. The pure
// rules of domain/messages.ts are checked here too (no stack needed for them).
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { LocalizedMessage } from '../db/entities/LocalizedMessage.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { tenantEm } from '../db/orm.js';
import {
  canonicalLocale,
  duplicateMessage,
  fallbackChain,
  reservedKeyReason,
  resolveMessages,
  storedLocale,
} from '../domain/messages.js';
import '../domain/messages.errors.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
/** MESSAGES_MANAGE on both root branches (Berlin, Spandau): a tenant administrator. */
let admin: string;
/** A role with MESSAGES_READ only, on the district. */
let reader: string;
/** Finance on the business unit: no operational permission at all. */
let financeOnly: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const messages = (suffix = '') => back(`/resources/messages${suffix}`);

/** A back-scope API client holding these roles; its token. */
async function clientWith(
  grants: { role: Role; branchId?: number; businessUnitId?: number }[],
): Promise<string> {
  const em = session.em();
  const clientId = `messages-${randomBytes(4).toString('hex')}`;
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  for (const grant of grants)
    em.create(RoleAssignment, {
      subjectType: 'API_CLIENT',
      subjectId: clientId,
      role: grant.role,
      ...(grant.branchId ? { branch: em.getReference(Branch, grant.branchId) } : {}),
      ...(grant.businessUnitId ? { businessUnit: em.getReference(BusinessUnit, grant.businessUnitId) } : {}),
    });
  await em.flush();
  return session.stack.token(session.seed.tenant, { clientId, clientSecret: `${clientId}-secret` });
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalmsg', name: 'Rival Messages' } });
  const em = session.em();
  const administrator = await em.findOneOrFail(Role, { name: 'Administrator' });
  const finance = await em.findOneOrFail(Role, { name: 'Finance' });
  const readOnly = em.create(Role, { name: 'Message reader', permissions: ['MESSAGES_READ'] });
  await em.flush();
  [admin, reader, financeOnly] = await Promise.all([
    clientWith([
      { role: administrator, branchId: session.seed.cityBranchId },
      { role: administrator, branchId: session.seed.otherBranchId },
    ]),
    clientWith([{ role: readOnly, branchId: session.seed.branchId }]),
    clientWith([{ role: finance, businessUnitId: session.seed.businessUnitId }]),
  ]);
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('the rules (domain/messages.ts)', () => {
  test('tags are canonicalised; stored tags are language[-Script][-REGION]', () => {
    expect(canonicalLocale('de_ch')).toBe('de-CH');
    expect(canonicalLocale('DE-ch-u-ca-gregory')).toBe('de-CH');
    expect(canonicalLocale('iw')).toBe('he');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('de-CH-CH')).toBeUndefined();
    expect(canonicalLocale('')).toBeUndefined();
    expect(storedLocale('es-419')).toBe('es-419');
    expect(storedLocale('und')).toBeUndefined();
    expect(storedLocale('de-CH-1996')).toBeUndefined();
    expect(storedLocale('x-private')).toBeUndefined();
  });

  test('the fallback chain: the tag, its truncations, then the default language', () => {
    expect(fallbackChain('de-CH', 'en')).toEqual(['de-CH', 'de', 'en']);
    expect(fallbackChain('zh-Hant-TW', 'de-AT')).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh', 'de-AT', 'de']);
    expect(fallbackChain('de', 'de')).toEqual(['de']);
    expect(fallbackChain(undefined, 'en')).toEqual(['en']);
    const rows = [
      { key: 'a', locale: 'en', text: 'A' },
      { key: 'a', locale: 'de', text: 'A-de' },
      { key: 'b', locale: 'en', text: 'B' },
      { key: 'c', locale: 'fr', text: 'C-fr' },
      { key: 'd', locale: 'de-CH', text: 'D-ch' },
    ];
    expect(resolveMessages(rows, ['de-CH', 'de', 'en'])).toEqual({ a: 'A-de', b: 'B', d: 'D-ch' });
  });

  test('reserved keys and duplicates in a batch', () => {
    for (const key of ['system.x', 'SYSTEM.title', 'AUTH101', 'U130.2', 'M404', '0022', 'A103416'])
      expect(reservedKeyReason(key)).toEqual(expect.any(String));
    for (const key of ['error.AUTH101', 'systems.x', 'app.system.x', 'AUTH1010x'])
      expect(reservedKeyReason(key)).toBeUndefined();
    expect(
      duplicateMessage([
        { key: 'a', locale: 'de' },
        { key: 'a', locale: 'en' },
        { key: 'a', locale: 'de' },
      ]),
    ).toEqual({ key: 'a', locale: 'de' });
  });
});

describe('operator management', () => {
  test('the list: seeded texts, filters, sort and paging headers', async () => {
    const all = await call('GET', messages(), { token: admin });
    expect(all.status).toBe(200);
    expect(Number(all.headers.get('x-total-count'))).toBeGreaterThanOrEqual(18);
    const byKey = await call('GET', messages('?key=WELCOME&locale=de&size=1'), { token: reader });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('x-total-count')).toBe('2');
    expect(byKey.headers.get('x-total-pages')).toBe('2');
    expect(byKey.body).toEqual([
      expect.objectContaining({ key: 'app.welcome.subtitle', locale: 'de', updatedBy: 'system:seed' }),
    ]);
    const exact = await call('GET', messages('?key=app.welcome.title&exactMatch=true'), { token: reader });
    expect(exact.body.map((m: { locale: string }) => m.locale)).toEqual(['de', 'de-CH', 'en']);
    expect((await call('GET', messages('?key=app.welcome&exactMatch=true'), { token: reader })).body).toEqual(
      [],
    );
    // Tags are compared canonical; `de` does not include `de-CH`.
    const swiss = await call('GET', messages('?locale=de_ch'), { token: reader });
    expect(swiss.body.map((m: { key: string }) => m.key)).toEqual(['app.welcome.title']);
    const twoLocales = await call('GET', messages('?key=app.rental.start&locale=en&locale=DE'), {
      token: reader,
    });
    expect(twoLocales.body.map((m: { text: string }) => m.text)).toEqual(['Fahrt starten', 'Start ride']);
    const search = await call('GET', messages('?searchText=AKKU'), { token: reader });
    expect(search.body).toEqual([expect.objectContaining({ key: 'app.vehicle.batteryLow', locale: 'de' })]);
    // LIKE wildcards are text, not patterns.
    expect((await call('GET', messages('?searchText=%25_'), { token: reader })).body).toEqual([]);
  });

  test('create, read, update, delete; M101, M102, M404', async () => {
    const created = await call('POST', messages(), {
      token: admin,
      body: { key: 'app.test.greeting', locale: 'fr_fr', text: 'Bonjour' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      key: 'app.test.greeting',
      locale: 'fr-FR',
      text: 'Bonjour',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      updatedBy: expect.stringMatching(/^client:messages-/),
    });
    const id = created.body.id as number;
    expect(created.headers.get('location')).toBe(messages(`/${id}`));
    expect((await call('GET', messages(`/${id}`), { token: reader })).body).toEqual(created.body);

    // The same key and locale again, in any spelling of the tag.
    for (const locale of ['fr-FR', 'FR-fr', 'fr_FR'])
      expectError(
        await call('POST', messages(), {
          token: admin,
          body: { key: 'app.test.greeting', locale, text: 'Salut' },
        }),
        409,
        'M101',
      );
    // Another language of the key is another message.
    const english = await call('POST', messages(), {
      token: admin,
      body: { key: 'app.test.greeting', locale: 'en', text: 'Hello' },
    });
    expect(english.status).toBe(201);

    // Reserved keys: the system namespace (any case) and the catalogue's codes; `error.<code>` is free.
    for (const key of ['system.banner', 'System.Banner', 'AUTH101', 'U130.2', 'M404'])
      expectError(
        await call('POST', messages(), { token: admin, body: { key, locale: 'en', text: 'x' } }),
        422,
        'M102',
      );
    expect(
      (
        await call('POST', messages(), {
          token: admin,
          body: { key: 'error.AUTH101', locale: 'en', text: 'Wrong password' },
        })
      ).status,
    ).toBe(201);

    // Update: text only, then key and locale; collisions and reserved keys refused.
    const changed = await call('PATCH', messages(`/${id}`), { token: admin, body: { text: 'Bonjour !' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...created.body, text: 'Bonjour !', updatedAt: expect.any(String) });
    expectError(
      await call('PATCH', messages(`/${id}`), { token: admin, body: { locale: 'EN' } }),
      409,
      'M101',
    );
    expectError(
      await call('PATCH', messages(`/${id}`), { token: admin, body: { key: 'system.x' } }),
      422,
      'M102',
    );
    const moved = await call('PATCH', messages(`/${id}`), {
      token: admin,
      body: { key: 'app.test.hello', locale: 'fr' },
    });
    expect(moved.body).toEqual(
      expect.objectContaining({ key: 'app.test.hello', locale: 'fr', text: 'Bonjour !' }),
    );
    // A PATCH naming the message's own key and locale is no collision.
    expect(
      (
        await call('PATCH', messages(`/${id}`), {
          token: admin,
          body: { key: 'app.test.hello', locale: 'fr' },
        })
      ).status,
    ).toBe(200);

    expect((await call('DELETE', messages(`/${id}`), { token: admin })).status).toBe(204);
    expectError(await call('GET', messages(`/${id}`), { token: admin }), 404, 'M404');
    expectError(await call('PATCH', messages(`/${id}`), { token: admin, body: { text: 'x' } }), 404, 'M404');
    expectError(await call('DELETE', messages(`/${id}`), { token: admin }), 404, 'M404');
    expect(await session.em().count(LocalizedMessage, { id })).toBe(0);
  });

  test('bulk import: created, updated, unchanged; all or nothing', async () => {
    const first = await call('PUT', messages('/bulk'), {
      token: admin,
      body: {
        messages: [
          { key: 'app.bulk.one', locale: 'en', text: 'One' },
          { key: 'app.bulk.one', locale: 'de', text: 'Eins' },
          { key: 'app.bulk.two', locale: 'en', text: 'Two' },
        ],
      },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ created: 3, updated: 0, unchanged: 0 });
    const second = await call('PUT', messages('/bulk'), {
      token: admin,
      body: {
        messages: [
          { key: 'app.bulk.one', locale: 'EN', text: 'One' },
          { key: 'app.bulk.two', locale: 'en', text: 'Two!' },
          { key: 'app.bulk.three', locale: 'de_AT', text: 'Drei' },
        ],
      },
    });
    expect(second.body).toEqual({ created: 1, updated: 1, unchanged: 1 });
    const em = session.em();
    expect((await em.findOneOrFail(LocalizedMessage, { key: 'app.bulk.two', locale: 'en' })).text).toBe(
      'Two!',
    );
    expect(await em.count(LocalizedMessage, { key: 'app.bulk.three', locale: 'de-AT' })).toBe(1);

    // One bad item refuses the whole import.
    const before = await em.count(LocalizedMessage, {});
    expectError(
      await call('PUT', messages('/bulk'), {
        token: admin,
        body: {
          messages: [
            { key: 'app.bulk.four', locale: 'en', text: 'Four' },
            { key: 'app.bulk.four', locale: 'EN', text: 'Vier' },
          ],
        },
      }),
      409,
      'M101',
    );
    expectError(
      await call('PUT', messages('/bulk'), {
        token: admin,
        body: {
          messages: [
            { key: 'app.bulk.five', locale: 'en', text: 'Five' },
            { key: 'system.five', locale: 'en', text: 'Five' },
          ],
        },
      }),
      422,
      'M102',
    );
    expect(await em.count(LocalizedMessage, {})).toBe(before);
    const tooMany = Array.from({ length: 1001 }, (_, index) => ({
      key: `app.many.k${index}`,
      locale: 'en',
      text: 'x',
    }));
    expectError(
      await call('PUT', messages('/bulk'), { token: admin, body: { messages: tooMany } }),
      400,
      '0022',
    );
    expectError(await call('PUT', messages('/bulk'), { token: admin, body: { messages: [] } }), 400, '0022');
    // A path with a method it lacks, not a message id.
    expectError(await call('GET', messages('/bulk'), { token: admin }), 405, '0021');
  });

  test('denials: permissions, scope, another tenant', async () => {
    const body = { key: 'app.denied', locale: 'en', text: 'x' };
    const seeded = await session
      .em()
      .findOneOrFail(LocalizedMessage, { key: 'app.rental.end', locale: 'en' });
    // The demo operator holds MESSAGES_MANAGE on Berlin only, not on every root branch.
    expectError(await call('POST', messages(), { token: session.operatorToken, body }), 403, 'AUTH002');
    expect((await call('GET', messages(`/${seeded.id}`), { token: session.operatorToken })).status).toBe(200);
    // Reading is not writing.
    expectError(await call('POST', messages(), { token: reader, body }), 403, 'AUTH002');
    expectError(
      await call('PATCH', messages(`/${seeded.id}`), { token: reader, body: { text: 'x' } }),
      403,
      'AUTH002',
    );
    expectError(await call('DELETE', messages(`/${seeded.id}`), { token: reader }), 403, 'AUTH002');
    expectError(
      await call('PUT', messages('/bulk'), { token: reader, body: { messages: [body] } }),
      403,
      'AUTH002',
    );
    // No operational permission at all: not even reading (and no probing of ids: AUTH002 before M404).
    expectError(await call('GET', messages(), { token: financeOnly }), 403, 'AUTH002');
    expectError(await call('GET', messages('/999999'), { token: financeOnly }), 403, 'AUTH002');
    // Tokens: none, the app's scope, another tenant's.
    expectError(await call('GET', messages()), 401, 'JWT006');
    expectError(await call('GET', messages(), { token: session.appClientToken }), 403, '0005');
    expectError(await call('GET', messages(), { token: session.rivalOperatorToken }), 403, 'AUTH002');
    // Another tenant's message is not found here, and the rival's list never shows ours.
    const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
    const rivalMessage = rivalEm.create(LocalizedMessage, {
      key: 'app.rival.only',
      locale: 'en',
      text: 'Rival',
      updatedBy: 'test',
    });
    await rivalEm.flush();
    expectError(await call('GET', messages(`/${rivalMessage.id}`), { token: admin }), 404, 'M404');
    expectError(await call('DELETE', messages(`/${rivalMessage.id}`), { token: admin }), 404, 'M404');
    expect((await call('GET', messages('?key=app.rival.only'), { token: admin })).body).toEqual([]);
    // The same key and locale may exist in both tenants.
    expect(
      (
        await call('POST', messages(), {
          token: admin,
          body: { key: 'app.rival.only', locale: 'en', text: 'Ours' },
        })
      ).status,
    ).toBe(201);
    const rivalList = await call(
      'GET',
      `/v1/${session.rival.tenant}/back/resources/messages?key=app.rival.only`,
      { token: session.rivalOperatorToken },
    );
    expect(rivalList.body).toEqual([expect.objectContaining({ text: 'Rival' })]);
  });

  test('hostile input is refused with catalogue codes, never a 5xx', async () => {
    const post = (body: unknown) => call('POST', messages(), { token: admin, body });
    const valid = { key: 'app.hostile', locale: 'en', text: 'x' };
    const bad: unknown[] = [
      { ...valid, key: 'app.\u0000x' },
      { ...valid, key: 'app..x' },
      { ...valid, key: '.app' },
      { ...valid, key: 'app.x.' },
      { ...valid, key: 'app x' },
      { ...valid, key: 'k'.repeat(201) },
      { ...valid, key: '' },
      { ...valid, key: 42 },
      { ...valid, locale: 'x-private' },
      { ...valid, locale: 'und' },
      { ...valid, locale: 'de-CH-1996' },
      { ...valid, locale: 'e' },
      { ...valid, locale: 'de\u0000' },
      { ...valid, locale: 'de-CH-u-co-phonebk' },
      { ...valid, text: '' },
      { ...valid, text: 'x'.repeat(4001) },
      { ...valid, text: 'a\u0000b' },
      { ...valid, text: null },
      { ...valid, extra: true },
      { key: 'app.hostile', locale: 'en' },
      ['app.hostile', 'en', 'x'],
    ];
    for (const body of bad) {
      const reply = await post(body);
      expect({ body, status: reply.status, code: reply.body?.errorCode }).toEqual({
        body,
        status: 400,
        code: '0022',
      });
    }
    expectError(
      await call('POST', messages(), { token: admin, rawBody: '{"key": "app.x",' }),
      400,
      'AUTH001',
    );
    for (const id of ['0x1', '1e3', '-1', '0', '99999999999', 'abc', '1.5'])
      expectError(await call('GET', messages(`/${id}`), { token: admin }), 400, '0022');
    expectError(await call('PATCH', messages('/1'), { token: admin, body: {} }), 400, '0022');
    for (const query of [
      '?size=0',
      '?size=501',
      '?page=-1',
      '?exactMatch=yes',
      '?locale=und',
      '?key=a%00b',
      '?size=1e1',
    ])
      expect((await call('GET', messages(query), { token: admin })).status).toBe(400);
    expect(await session.em().count(LocalizedMessage, { key: 'app.hostile' })).toBe(0);
  });
});
