// The app's configuration over HTTP against the real database: localized texts through the fallback chain
// (`de-CH` → `de` → the tenant's default language, a setting or `en`), the languages, ETag and
// Cache-Control with 304 revalidation; `POST /userevents` (APP_ types only, every Device-Position form and
// hostile values, request information without sensitive keys, size bound, the caller linked); and the
// intersectable branches with their effective contact details. Another tenant's data and hostile input.
import net from 'node:net';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { CompatibleBranch } from '../db/entities/CompatibleBranch.js';
import { Event } from '../db/entities/Event.js';
import { LocalizedMessage } from '../db/entities/LocalizedMessage.js';
import { Setting } from '../db/entities/Setting.js';
import { tenantEm } from '../db/orm.js';
import {
  appEventTypes,
  isSensitiveKey,
  isSensitiveValue,
  parseDevicePosition,
} from '../domain/app-events.js';
import { DEFAULT_LANGUAGE_SETTING } from '../domain/messages.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { apiReloaded } from './support/read-cache.js';
import { startSession, type Session } from './support/session.js';

let session: Session;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const front = (path: string) => session.stack.front(path);

/** The events of one type, oldest first. */
const eventsOf = (type: string) => session.em().find(Event, { type }, { orderBy: { id: 'asc' } });

/** Sends raw bytes to the API and returns the status and body of its answer (for what fetch refuses to send). */
async function rawRequest(text: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(session.stack.baseUrl);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  return { status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) };
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalapp', name: 'Rival App' } });
}, 180_000);

afterAll(async () => {
  await session?.stop();
});

describe('localized messages for the app', () => {
  test('the fallback chain: de-CH → de → en, any spelling of the tag, anonymous', async () => {
    const swiss = await call('GET', front('/resources/messages?locale=de_ch'));
    expect(swiss.status).toBe(200);
    expect(swiss.body.locale).toBe('de-CH');
    expect(swiss.body.locales).toEqual(['de-CH', 'de', 'en']);
    expect(swiss.body.messages).toEqual(
      expect.objectContaining({
        'app.welcome.title': 'Grüezi bei Demo Mobility',
        'app.welcome.subtitle': 'Roller, Räder und Autos um die Ecke',
        'app.support.hours': 'Support: Mon–Fri, 8:00–20:00',
        'error.R102': 'Du hast bereits eine aktive Fahrt.',
      }),
    );
    // Extensions and variants are ignored; a language without texts falls back to the default.
    const extended = await call('GET', front('/resources/messages?locale=DE-ch-u-ca-gregory'));
    expect(extended.body.messages).toEqual(swiss.body.messages);
    const french = await call('GET', front('/resources/messages?locale=fr-FR'));
    expect(french.body.locales).toEqual(['fr-FR', 'fr', 'en']);
    expect(french.body.messages['app.welcome.title']).toBe('Welcome to Demo Mobility');
    const none = await call('GET', front('/resources/messages'), { token: session.appClientToken });
    expect(none.body).toEqual(expect.objectContaining({ locale: 'en', locales: ['en'] }));
    expect(none.body.messages).toEqual(french.body.messages);
    // Narrowed by keys or a prefix.
    const some = await call(
      'GET',
      front('/resources/messages?locale=de&keys=app.rental.start&keys=app.unknown'),
    );
    expect(some.body.messages).toEqual({ 'app.rental.start': 'Fahrt starten' });
    const errors = await call('GET', front('/resources/messages?locale=de&prefix=error.'));
    expect(Object.keys(errors.body.messages)).toEqual(['error.P104', 'error.R102']);
  });

  test('the tenant default language (setting messages.defaultLanguage) ends every chain', async () => {
    const em = session.em();
    const setting = em.create(Setting, {
      key: DEFAULT_LANGUAGE_SETTING,
      name: 'Default language',
      area: 'SHARED',
      valueType: 'JSON',
      branchIds: [0],
      value: { language: 'de' },
    });
    await em.flush();
    await apiReloaded(session.stack);
    try {
      const french = await call('GET', front('/resources/messages?locale=fr'));
      expect(french.body.locales).toEqual(['fr', 'de']);
      expect(french.body.messages['app.welcome.title']).toBe('Willkommen bei Demo Mobility');
      // Only in English: not in this chain, so absent (the app keeps its own text).
      expect(french.body.messages['app.support.hours']).toBeUndefined();
      const languages = await call('GET', front('/resources/messages/languages'));
      expect(languages.body.filter((l: { isDefault: boolean }) => l.isDefault)).toEqual([
        expect.objectContaining({ locale: 'de', name: 'Deutsch', englishName: 'German' }),
      ]);
      // A malformed setting value is no language: the platform default applies.
      setting.value = { language: 'not a tag' };
      await em.flush();
      await apiReloaded(session.stack);
      expect((await call('GET', front('/resources/messages?locale=fr'))).body.locales).toEqual(['fr', 'en']);
    } finally {
      em.remove(setting);
      await em.flush();
      await apiReloaded(session.stack);
    }
  });

  test('languages: every locale with texts plus the default, with names and counts', async () => {
    const languages = await call('GET', front('/resources/messages/languages'));
    expect(languages.status).toBe(200);
    expect(languages.body).toEqual([
      { locale: 'de', name: 'Deutsch', englishName: 'German', isDefault: false, messageCount: 8 },
      {
        locale: 'de-CH',
        name: expect.any(String),
        englishName: 'Swiss High German',
        isDefault: false,
        messageCount: 1,
      },
      { locale: 'en', name: 'English', englishName: 'English', isDefault: true, messageCount: 9 },
    ]);
  });

  test('ETag and Cache-Control; If-None-Match answers 304; a change gives a new ETag', async () => {
    const url = front('/resources/messages?locale=de');
    // A conditional request as app HTTP stacks send it (fetch would add `Cache-Control: no-cache`, an
    // end-to-end reload, which always gets the full answer).
    const revalidate = (path: string, etag: string, cacheControl = 'max-age=0') =>
      call('GET', path, { headers: { 'if-none-match': etag, 'cache-control': cacheControl } });
    const first = await call('GET', url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const again = await revalidate(url, etag);
    expect({ status: again.status, body: again.body }).toEqual({ status: 304, body: undefined });
    expect(again.headers.get('etag')).toBe(etag);
    expect((await revalidate(url, `W/${etag}`)).status).toBe(304);
    expect((await revalidate(url, '"other", ' + etag)).status).toBe(304);
    expect((await revalidate(url, '"other"')).status).toBe(200);
    expect((await revalidate(url, etag, 'no-cache')).status).toBe(200);
    // Another language is another answer.
    const english = await call('GET', front('/resources/messages?locale=en'));
    expect(english.headers.get('etag')).not.toBe(etag);
    const languagesPath = front('/resources/messages/languages');
    const languages = await call('GET', languagesPath);
    expect((await revalidate(languagesPath, languages.headers.get('etag')!)).status).toBe(304);

    const em = session.em();
    const added = em.create(LocalizedMessage, {
      key: 'app.etag.test',
      locale: 'de',
      text: 'Neu',
      updatedBy: 'test',
    });
    await em.flush();
    try {
      const changed = await revalidate(url, etag);
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.messages['app.etag.test']).toBe('Neu');
    } finally {
      em.remove(added);
      await em.flush();
    }
  });

  test('another tenant’s texts stay there; hostile tags and tokens are refused', async () => {
    const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
    rivalEm.create(LocalizedMessage, {
      key: 'app.rival.secret',
      locale: 'en',
      text: 'Rival',
      updatedBy: 'test',
    });
    await rivalEm.flush();
    expect(
      (await call('GET', front('/resources/messages?locale=en'))).body.messages['app.rival.secret'],
    ).toBeUndefined();
    const rival = await call(
      'GET',
      `/v1/${session.rival.tenant}/front/resources/messages?locale=en&prefix=app.rival`,
    );
    expect(rival.body.messages).toEqual({ 'app.rival.secret': 'Rival' });

    for (const query of [
      'locale=x-private',
      'locale=e',
      'locale=12',
      'locale=de%00',
      'locale=de-CH-CH',
      'locale=abcdefghi',
      `locale=${'de-'.repeat(20)}de`,
      'locale=de&locale=en',
      'keys=a..b',
      'keys=a%00b',
      'prefix=.x',
      'prefix=%25',
    ])
      expectError(await call('GET', front(`/resources/messages?${query}`)), 400, '0022');
    const many = Array.from({ length: 201 }, (_, index) => `keys=k${index}`).join('&');
    expectError(await call('GET', front(`/resources/messages?${many}`)), 400, '0022');
    expectError(await call('GET', front('/resources/messages'), { token: 'garbage' }), 401, 'AUTH005');
    expectError(
      await call('GET', front('/resources/messages'), { token: session.operatorToken }),
      403,
      '0005',
    );
    expectError(await call('GET', '/v1/zz-nobody/front/resources/messages/languages'), 404, 'AUTH051');
    // A method the path lacks: 405 once authenticated (without a token the caller learns nothing: JWT006).
    expectError(
      await call('POST', front('/resources/messages'), { token: session.appClientToken, body: {} }),
      405,
      '0021',
    );
    expectError(await call('POST', front('/resources/messages'), { body: {} }), 401, 'JWT006');
  });
});

describe('app events (POST /userevents)', () => {
  test('the Device-Position header: each form stored, hostile values ignored without failing', () => {
    // The pure parser, table-driven (the HTTP path is checked below with a few of them).
    const valid: [string, { lat: number; lng: number }][] = [
      ['52.52;13.405', { lat: 52.52, lng: 13.405 }],
      ['52.52 13.405', { lat: 52.52, lng: 13.405 }],
      ['52.52; 13.405', { lat: 52.52, lng: 13.405 }],
      [' -33.8688 ;\t151.2093 ', { lat: -33.8688, lng: 151.2093 }],
      ['+90;-180', { lat: 90, lng: -180 }],
      ['-0;-0', { lat: 0, lng: 0 }],
      ['0 0', { lat: 0, lng: 0 }],
    ];
    for (const [header, position] of valid) expect(parseDevicePosition(header)).toEqual(position);
    for (const header of [
      undefined,
      '',
      'NaN;NaN',
      'NaN NaN',
      '91;0',
      '-90.0001;0',
      '0;181',
      '0;-180.5',
      'Infinity;0',
      '1e1;2',
      '0x1;0x2',
      '52.52,13.405',
      '52.52',
      '52.52;13.405;7',
      ';13.405',
      '52.52;',
      '52.52;;13.405',
      '52.;13.4',
      '.5;13.4',
      '５２;１３',
      '52.52\u000013.405',
      '1'.repeat(10_000),
      `52.${'1'.repeat(100)};13.4`,
    ])
      expect(parseDevicePosition(header)).toBeUndefined();
  });

  test('over HTTP: valid positions stored, invalid ones ignored, 204 either way', async () => {
    const cases: [string, { lat: number; lng: number } | null][] = [
      ['52.52;13.405', { lat: 52.52, lng: 13.405 }],
      ['52.52 13.405', { lat: 52.52, lng: 13.405 }],
      ['-33.8688; 151.2093', { lat: -33.8688, lng: 151.2093 }],
      ['NaN;NaN', null],
      ['91;0', null],
      ['0x1;0x2', null],
      ['52.52,13.405', null],
      ['x'.repeat(8000), null],
    ];
    for (const [index, [header, position]] of cases.entries()) {
      const type = `APP_POSITION_CASE_${index}`;
      const reply = await call('POST', front(`/userevents?type=${type}`), {
        headers: { 'Device-Position': header },
      });
      expect({ header: header.slice(0, 20), status: reply.status }).toEqual({
        header: header.slice(0, 20),
        status: 204,
      });
      const [event] = await eventsOf(type);
      expect(event!.position ?? null).toEqual(position);
    }
    // No header, no body.
    expect((await call('POST', front('/userevents?type=APP_NO_POSITION'))).status).toBe(204);
    expect((await eventsOf('APP_NO_POSITION'))[0]).toEqual(
      expect.objectContaining({ position: null, payload: null, customerId: null, adminSubject: null }),
    );
    // A NUL in a header is a malformed request for Node's parser (fetch will not even send it): a catalogue
    // 400, before any route; a header section over 16 KiB is 431.
    const tenantPath = front('/userevents?type=APP_NUL');
    const nul = await rawRequest(
      `POST ${tenantPath} HTTP/1.1\r\nHost: x\r\nDevice-Position: 52.5\u000013.4\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(nul.status).toBe(400);
    expect(JSON.parse(nul.body)).toEqual(expect.objectContaining({ errorCode: '0026' }));
    const huge = await call('POST', front('/userevents?type=APP_HUGE'), {
      headers: { 'Device-Position': '1'.repeat(20_000) },
    });
    expect({ status: huge.status, code: huge.body?.errorCode }).toEqual({ status: 431, code: '0025' });
    expect(await eventsOf('APP_NUL')).toEqual([]);
  });

  test('types: the spec’s 13 and other APP_ names accepted; legacy and backend types refused', async () => {
    for (const type of [...appEventTypes, 'APP_CUSTOM_SCREEN_VIEW'])
      expect({ type, status: (await call('POST', front(`/userevents?type=${type}`))).status }).toEqual({
        type,
        status: 204,
      });
    for (const type of [
      'LOGIN',
      'SIGNUP',
      'LOGOUT',
      'START',
      'RENTAL_START',
      'USER_PAYMENT_METHOD_ADD',
      'app_start',
      'APP_',
      'APP__START',
      'APP_START_',
      'APP_START%20',
      'APP_START%00',
      `APP_${'X'.repeat(61)}`,
      '',
    ])
      expectError(await call('POST', front(`/userevents?type=${type}`)), 400, '0022');
    expectError(await call('POST', front('/userevents')), 400, '0022');
    expectError(
      await call('GET', front('/userevents?type=APP_START'), { token: session.appClientToken }),
      405,
      '0021',
    );
    expect(await eventsOf('LOGIN')).toEqual([]);
  });

  test('request information: kept small, sensitive keys and values dropped, the branch taken when real', async () => {
    const reply = await call('POST', front('/userevents?type=APP_VEHICLE_SELECTION'), {
      body: {
        vehicleId: 12,
        source: 'map',
        password: 'hunter2',
        accessToken: 'abc',
        api_key: 'k',
        'card-number': '4111 1111 1111 1111',
        note: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
        pasted: '4111111111111111',
        sessionId: 's-1',
        details: { zoom: 14, cvv: '123', auth: 'Bearer abcdefghijkl' },
        ids: ['a', '4012888888881881'],
        spinner: true,
        branchId: session.seed.branchId,
      },
    });
    expect(reply.status).toBe(204);
    const event = (await eventsOf('APP_VEHICLE_SELECTION')).at(-1);
    expect(event!.payload).toEqual({
      requestInfo: {
        vehicleId: 12,
        source: 'map',
        sessionId: 's-1',
        details: { zoom: 14 },
        spinner: true,
        branchId: session.seed.branchId,
      },
      droppedKeys: [
        'password',
        'accessToken',
        'api_key',
        'card-number',
        'note',
        'pasted',
        'details.cvv',
        'details.auth',
        'ids',
      ],
    });
    expect(event!.branchId).toBe(session.seed.branchId);
    expect(JSON.stringify(event!.payload)).not.toMatch(/hunter2|4111|eyJ|Bearer/);

    // A branchId of another tenant or of the wrong type is kept as information only.
    for (const [type, branchId] of [
      ['APP_MAP_NAVIGATION', session.rival.branchId],
      ['APP_SIGNUP', String(session.seed.branchId)],
    ] as const) {
      expect((await call('POST', front(`/userevents?type=${type}`), { body: { branchId } })).status).toBe(
        204,
      );
      expect((await eventsOf(type)).at(-1)!.branchId).toBeNull();
    }
    expect(isSensitiveKey('sessionDurationSeconds')).toBe(false);
    expect(isSensitiveKey('refresh_token')).toBe(true);
    expect(isSensitiveKey('IBAN')).toBe(true);
    expect(isSensitiveKey('licenseNumber')).toBe(true);
    expect(isSensitiveValue('4111111111111112')).toBe(false);

    // Too large (over 4096 bytes), not an object, too wide or deep: refused.
    expectError(
      await call('POST', front('/userevents?type=APP_CLOSE'), {
        body: {
          a: 'x'.repeat(1000),
          b: 'x'.repeat(1000),
          c: 'x'.repeat(1000),
          d: 'x'.repeat(1000),
          e: 'x'.repeat(200),
        },
      }),
      413,
      '0024',
    );
    for (const rawBody of [
      '[1,2]',
      '"text"',
      '42',
      'null',
      '{"a":{"b":{"c":1}}}',
      '{"a":[{"b":1}]}',
      '{"a":1e400}',
    ])
      expect((await call('POST', front('/userevents?type=APP_CLOSE'), { rawBody })).status).toBe(400);
    expectError(
      await call('POST', front('/userevents?type=APP_CLOSE'), { rawBody: '{"a":' }),
      400,
      'AUTH001',
    );
    expect(await eventsOf('APP_CLOSE')).toHaveLength(1); // the one of the types test
  });

  test('tokens: a customer is linked as the user, an app client as the subject; bad tokens refused', async () => {
    const customerId = session.seed.customerIds[0]!;
    const customer = await session.customerToken(customerId);
    expect(
      (
        await call('POST', front('/userevents?type=APP_LOGIN'), {
          token: customer,
          body: { method: 'password' },
          headers: { 'Device-Position': '52.5 13.4' },
        })
      ).status,
    ).toBe(204);
    expect((await eventsOf('APP_LOGIN')).at(-1)).toEqual(
      expect.objectContaining({
        customerId,
        adminSubject: null,
        position: { lat: 52.5, lng: 13.4 },
        payload: { requestInfo: { method: 'password' } },
      }),
    );
    expect(
      (await call('POST', front('/userevents?type=APP_ACTIVATE'), { token: session.appClientToken })).status,
    ).toBe(204);
    expect((await eventsOf('APP_ACTIVATE')).at(-1)).toEqual(
      expect.objectContaining({ customerId: null, adminSubject: 'client:demo-app' }),
    );
    expectError(
      await call('POST', front('/userevents?type=APP_LOGOUT'), { token: 'garbage' }),
      401,
      'AUTH005',
    );
    expectError(
      await call('POST', front('/userevents?type=APP_LOGOUT'), { token: session.operatorToken }),
      403,
      '0005',
    );
    const rivalCustomer = await session.customerToken(session.rival.customerIds[0]!, session.rival.tenant);
    expectError(
      await call('POST', front('/userevents?type=APP_LOGOUT'), { token: rivalCustomer }),
      403,
      'AUTH002',
    );
    expectError(await call('POST', '/v1/zz-nobody/front/userevents?type=APP_LOGOUT'), 404, 'AUTH051');
    expect(await eventsOf('APP_LOGOUT')).toHaveLength(1); // the one of the types test
  });
});

describe('intersectable branches (GET /branches/{branchId}/intersectable)', () => {
  test('compatible app-visible branches with their effective contact details', async () => {
    const em = session.em();
    const [station] = session.seed.bookingStationIds;
    const district = session.seed.branchId;
    const hidden = em.create(Branch, {
      name: 'Hidden depot',
      code: 'hidden-depot',
      businessUnit: em.getReference(BusinessUnit, session.seed.businessUnitId),
      parent: em.getReference(Branch, session.seed.cityBranchId),
      timeZoneId: 'Europe/Berlin',
      visibility: 'private',
    });
    await em.flush();
    for (const compatible of [station, session.seed.otherBranchId, hidden.id])
      em.create(CompatibleBranch, {
        branch: em.getReference(Branch, district),
        compatible: em.getReference(Branch, compatible),
        isIncoming: compatible !== station,
        isOutgoing: true,
      });
    await em.flush();

    const intersectable = async () => {
      const reply = await call('GET', front(`/branches/${district}/intersectable`), {
        token: session.appClientToken,
      });
      expect(reply.status).toBe(200);
      return new Map<number, Record<string, unknown>>(reply.body.map((b: { id: number }) => [b.id, b]));
    };
    const cityContact = {
      email: 'berlin@example.com',
      phoneNumber: '+49 30 1234567',
      website: 'https://example.com',
    };
    let byId = await intersectable();
    expect([...byId.keys()].sort()).toEqual(
      [session.seed.cityBranchId, station, session.seed.otherBranchId].sort(),
    );
    // Its own details; a station without any shows its city's; Spandau (a root) has none yet.
    expect(byId.get(session.seed.cityBranchId)).toEqual(
      expect.objectContaining({ contactInfo: cityContact, isIncoming: true, isOutgoing: true }),
    );
    expect(byId.get(station)).toEqual(
      expect.objectContaining({ contactInfo: cityContact, isIncoming: false, isOutgoing: true }),
    );
    expect(byId.get(session.seed.otherBranchId)!.contactInfo).toBeNull();
    // The business unit's details are the last fallback.
    const unit = await em.findOneOrFail(BusinessUnit, session.seed.businessUnitId);
    unit.contactInfo = { email: 'service@demo-mobility.example', phoneNumber: '+49 30 7654321' };
    await em.flush();
    byId = await intersectable();
    expect(byId.get(session.seed.otherBranchId)!.contactInfo).toEqual(unit.contactInfo);
    expect(byId.get(station)!.contactInfo).toEqual(cityContact);
    // The app's branch list shows the same effective details.
    const list = await call('GET', front('/branches'), { token: session.appClientToken });
    const listed = list.body.find((b: { id: number }) => b.id === station);
    expect(listed.contactInfo).toEqual(cityContact);

    // A private branch, another tenant's branch, a hostile id; no token.
    expectError(
      await call('GET', front(`/branches/${hidden.id}/intersectable`), { token: session.appClientToken }),
      404,
      'B404',
    );
    expectError(
      await call('GET', front(`/branches/${session.rival.branchId}/intersectable`), {
        token: session.appClientToken,
      }),
      404,
      'B404',
    );
    for (const id of ['0x1', '1e3', '0', '-1', '99999999999', 'abc'])
      expectError(
        await call('GET', front(`/branches/${id}/intersectable`), { token: session.appClientToken }),
        400,
        '0022',
      );
    expectError(await call('GET', front(`/branches/${district}/intersectable`)), 401, 'JWT006');
  });
});
