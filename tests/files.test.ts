// Files end to end against the real object store (versitygw from the global setup): uploads and their
// limits (2 MiB, L405; a file part without Content-Type, L406), downloads as 303 to a pre-signed link the
// test follows to the bytes, an expired link refused by the store, links to tasks, damages and rentals
// (L404, L407, the rental's one-hour window), the access codes A103/A105/A106 with their sub-codes for
// another branch, tenant and customer, the seeded demo photo, and hostile input.
import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { FileLink } from '../db/entities/FileLink.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { StoredFile } from '../db/entities/StoredFile.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { MAX_FILE_BYTES } from '../domain/files.js';
import { loadConfig } from '../platform/config.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
let outsider: string;
let anna: string;
let ben: string;
let vehicle: Vehicle;

const png = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc0000003010100c9fe92ef0000000049454e44ae426082',
  'hex',
);

interface Part {
  name?: string;
  fileName?: string;
  contentType?: string;
  data: Buffer;
}

/** A multipart/form-data body written by hand, so every header of every part is the test's choice. */
function multipart(parts: readonly Part[], boundary = `----fleetflow${randomUUID()}`) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name ?? 'file'}"${part.fileName === undefined ? '' : `; filename="${part.fileName}"`}`;
    const headers = [`Content-Disposition: ${disposition}`];
    if (part.contentType !== undefined) headers.push(`Content-Type: ${part.contentType}`);
    chunks.push(
      Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1'),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function send(
  method: string,
  path: string,
  token: string | undefined,
  body?: { body: Buffer | ReadableStream<Uint8Array>; contentType?: string },
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body?.contentType) headers['content-type'] = body.contentType;
  const response = await fetch(`${session.stack.baseUrl}${path}`, {
    method,
    headers,
    body: body?.body,
    redirect: 'manual',
    ...(body?.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);
const upload = (
  parts: readonly Part[],
  token = operator,
  path = back(`/files?branchId=${session.seed.branchId}`),
) => send('POST', path, token, multipart(parts));
const uploadPng = async (token = operator, path?: string): Promise<string> => {
  const reply = await upload([{ fileName: 'photo.png', contentType: 'image/png', data: png }], token, path);
  expect(reply.status).toBe(201);
  return reply.body.uuid as string;
};

/** Follows a 303 to the object store and answers what the store serves. */
async function download(path: string, token: string) {
  const reply = await send('GET', path, token);
  expect(reply.status).toBe(303);
  expect(reply.headers.get('cache-control')).toBe('no-store');
  const stored = await fetch(reply.headers.get('location')!);
  return { location: reply.headers.get('location')!, stored, bytes: Buffer.from(await stored.arrayBuffer()) };
}

async function endedRental(customerId: number, endedMsAgo: number): Promise<number> {
  const em = session.em();
  const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
  const now = Date.now();
  em.create(Rental, {
    id,
    workflowId: `files-test-rental-${id}`,
    state: 'ENDED',
    branch: em.getReference(Branch, session.seed.branchId),
    vehicle: em.getReference(Vehicle, vehicle.id),
    customer: em.getReference(Customer, customerId),
    reservedAt: new Date(now - endedMsAgo - 3_600_000),
    startedAt: new Date(now - endedMsAgo - 3_000_000),
    endedAt: new Date(now - endedMsAgo),
  });
  await em.flush();
  return id;
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalfiles', name: 'Rival Files' } });
  operator = session.operatorToken;
  const em = session.em();
  vehicle = (
    await em.find(Vehicle, { branch: session.seed.branchId }, { orderBy: { id: 'asc' }, limit: 1 })
  )[0]!;
  // A client reading tasks, rentals, vehicles and damages, but only on the sibling branch.
  const role = em.create(Role, {
    name: 'Sibling reader',
    permissions: ['TASK_READ', 'RENTAL_READ', 'VEHICLE_READ', 'DAMAGE_READ', 'FILE_UPLOAD'],
  });
  const client = em.create(ApiClient, {
    clientId: 'files-outsider',
    name: 'Files outsider',
    secretHash: await hashSecret('files-outsider-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: em.getReference(Branch, session.seed.otherBranchId),
  });
  await em.flush();
  outsider = await session.stack.token(session.seed.tenant, {
    clientId: 'files-outsider',
    clientSecret: 'files-outsider-secret',
  });
  [anna, ben] = await Promise.all(
    session.seed.customerIds.slice(0, 2).map((id) => session.customerToken(id)),
  );
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('upload and download', () => {
  it('stores the bytes and answers a 303 to a pre-signed link the store serves', async () => {
    const reply = await upload([{ fileName: 'brake lever.png', contentType: 'image/png', data: png }]);
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      uuid: expect.any(String),
      fileName: 'brake lever.png',
      contentType: 'image/png',
      size: png.length,
      sha256: createHash('sha256').update(png).digest('hex'),
      branchId: session.seed.branchId,
      createdAt: expect.any(String),
    });
    expect(reply.headers.get('location')).toBe(back(`/files/${reply.body.uuid}`));
    const { location, stored, bytes } = await download(back(`/files/${reply.body.uuid}`), operator);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe(String(loadConfig().fileLinkTtlSeconds));
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(stored.headers.get('content-disposition')).toContain('filename="brake lever.png"');
    expect(bytes.equals(png)).toBe(true);
    // The JSON variant, with an upper-case uuid in the path.
    const link = await send('GET', back(`/files/${String(reply.body.uuid).toUpperCase()}/link`), operator);
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ uuid: reply.body.uuid, size: png.length, url: expect.any(String) });
    expect(Buffer.from(await (await fetch(link.body.url)).arrayBuffer()).equals(png)).toBe(true);
  });

  it('takes exactly 2 MiB and refuses one byte more (L405), also when the length is not declared', async () => {
    const exact = Buffer.alloc(MAX_FILE_BYTES, 7);
    const ok = await upload([{ fileName: 'max.bin', contentType: 'application/octet-stream', data: exact }]);
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBe(MAX_FILE_BYTES);
    const { bytes } = await download(back(`/files/${ok.body.uuid}`), operator);
    expect(bytes.length).toBe(MAX_FILE_BYTES);
    const over = Buffer.alloc(MAX_FILE_BYTES + 1, 7);
    expectError(
      await upload([{ fileName: 'big.bin', contentType: 'application/octet-stream', data: over }]),
      413,
      'L405',
    );
    // Chunked: no Content-Length, 3 MiB streamed; cut when the file passes the limit.
    const { body, contentType } = multipart([
      {
        fileName: 'stream.bin',
        contentType: 'application/octet-stream',
        data: Buffer.alloc((3 * MAX_FILE_BYTES) / 2, 1),
      },
    ]);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < body.length; offset += 64 * 1024)
          controller.enqueue(body.subarray(offset, offset + 64 * 1024));
        controller.close();
      },
    });
    expectError(
      await send('POST', back(`/files?branchId=${session.seed.branchId}`), operator, {
        body: stream,
        contentType,
      }),
      413,
      'L405',
    );
    // A huge declared body is refused before it is read.
    const huge = multipart([
      {
        fileName: 'huge.bin',
        contentType: 'application/octet-stream',
        data: Buffer.alloc(8 * MAX_FILE_BYTES),
      },
    ]);
    expectError(
      await send('POST', back(`/files?branchId=${session.seed.branchId}`), operator, huge),
      413,
      'L405',
    );
  });

  it('refuses a file part without a content type (L406)', async () => {
    expectError(await upload([{ fileName: 'no-type.png', data: png }]), 400, 'L406');
    expectError(await upload([{ fileName: 'bad-type.png', contentType: 'image', data: png }]), 400, 'L406');
    expectError(await upload([{ fileName: 'x.png', data: png }], anna, front('/files')), 400, 'L406');
  });

  it('refuses an expired pre-signed link at the store', async () => {
    const uuid = await uploadPng();
    const file = await session.em().findOneOrFail(StoredFile, { uuid });
    const config = loadConfig();
    const client = new S3Client({
      endpoint: config.s3Endpoint,
      region: config.s3Region,
      forcePathStyle: true,
      credentials: { accessKeyId: config.s3AccessKeyId!, secretAccessKey: config.s3SecretAccessKey! },
    });
    // Signed a minute ago for ten seconds: expired now.
    const url = await getSignedUrl(
      client,
      new GetObjectCommand({ Bucket: config.s3Bucket, Key: file.objectKey }),
      {
        expiresIn: 10,
        signingDate: new Date(Date.now() - 60_000),
      },
    );
    const refused = await fetch(url);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('expired');
    client.destroy();
  });

  it('answers hostile input with catalogue errors', async () => {
    const path = back(`/files?branchId=${session.seed.branchId}`);
    const cases: [string, () => Promise<Reply>, number, string][] = [
      [
        'NUL in the file name',
        () => upload([{ fileName: 'a\u0000b.png', contentType: 'image/png', data: png }]),
        400,
        '0022',
      ],
      [
        'empty file',
        () => upload([{ fileName: 'empty.png', contentType: 'image/png', data: Buffer.alloc(0) }]),
        400,
        '0022',
      ],
      [
        'two parts',
        () =>
          upload([
            { fileName: 'a.png', contentType: 'image/png', data: png },
            { fileName: 'b.png', contentType: 'image/png', data: png },
          ]),
        400,
        '0022',
      ],
      [
        'a part not named file',
        () => upload([{ name: 'photo', fileName: 'a.png', contentType: 'image/png', data: png }]),
        400,
        '0022',
      ],
      [
        'many small parts',
        () => upload(Array.from({ length: 500 }, () => ({ name: 'x', data: Buffer.from('y') }))),
        400,
        '0022',
      ],
      [
        'no closing boundary',
        () =>
          send('POST', path, operator, {
            body: Buffer.from(
              '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\nContent-Type: image/png\r\n\r\nabc',
            ),
            contentType: 'multipart/form-data; boundary=b',
          }),
        400,
        '0022',
      ],
      [
        'no boundary',
        () => send('POST', path, operator, { body: png, contentType: 'multipart/form-data' }),
        400,
        '0022',
      ],
      [
        'JSON instead of multipart',
        () =>
          send('POST', path, operator, {
            body: Buffer.from('{"file":"x"}'),
            contentType: 'application/json',
          }),
        415,
        '0023',
      ],
      [
        'an image as the body',
        () => send('POST', path, operator, { body: png, contentType: 'image/png' }),
        415,
        '0023',
      ],
      [
        'branchId 0x1',
        () =>
          send(
            'POST',
            back('/files?branchId=0x1'),
            operator,
            multipart([{ fileName: 'a.png', contentType: 'image/png', data: png }]),
          ),
        400,
        '0022',
      ],
      [
        'another branch',
        () => upload([{ fileName: 'a.png', contentType: 'image/png', data: png }], outsider),
        403,
        'AUTH002',
      ],
      [
        'no token',
        () => upload([{ fileName: 'a.png', contentType: 'image/png', data: png }], ''),
        401,
        'JWT006',
      ],
      [
        'case-variant path',
        () =>
          send(
            'POST',
            `/v1/${session.seed.tenant}/back/FILES?branchId=${session.seed.branchId}`,
            operator,
            multipart([{ fileName: 'a.png', contentType: 'image/png', data: png }]),
          ),
        404,
        '0020',
      ],
      ['trailing slash', () => send('GET', back(`/files/${randomUUID()}/`), operator), 404, '0020'],
      ['not a uuid', () => send('GET', back('/files/not-a-uuid'), operator), 400, '0022'],
      ['NUL in the uuid', () => send('GET', back('/files/%00'), operator), 400, '0022'],
      ['unknown uuid', () => send('GET', back(`/files/${randomUUID()}`), operator), 404, 'L404'],
      [
        'app token on the operator interface',
        () => send('GET', back(`/files/${randomUUID()}`), anna),
        403,
        '0005',
      ],
    ];
    for (const [name, request, status, code] of cases) {
      const reply = await request();
      try {
        expectError(reply, status, code);
      } catch (error) {
        throw new Error(`${name}: ${JSON.stringify(reply.body)} (${reply.status})\n${String(error)}`);
      }
    }
    // None of them left a file row.
    expect(await session.em().count(StoredFile, { fileName: { $in: ['empty.png', 'a.png', 'b.png'] } })).toBe(
      0,
    );
  });
});

describe('links and access', () => {
  it('links files to tasks once (L404, L407) and shows them on the task', async () => {
    const [first, second] = [await uploadPng(), await uploadPng()];
    const created = await session.stack.call('POST', back('/tasks'), {
      token: operator,
      body: { taskData: { title: 'Photo check', branchId: session.seed.branchId, files: [first] } },
    });
    expect(created.status).toBe(201);
    expect(created.body.taskData.files).toEqual([
      expect.objectContaining({ uuid: first, contentType: 'image/png' }),
    ]);
    const id = created.body.id as number;
    const patch = (files: string[]) =>
      session.stack.call('PATCH', back(`/tasks/${id}`), { token: operator, body: { taskData: { files } } });
    expectError(await patch([second, second]), 409, 'L407');
    expectError(await patch([randomUUID()]), 404, 'L404');
    const both = await patch([first, second.toUpperCase()]);
    expect(both.status).toBe(200);
    expect(both.body.taskData.files.map((file: { uuid: string }) => file.uuid)).toEqual([first, second]);
    const one = await patch([second]);
    expect(one.body.taskData.files.map((file: { uuid: string }) => file.uuid)).toEqual([second]);
    // The outsider reads tasks, but not on this branch: A103 (a task is no more specific entity).
    expectError(await send('GET', back(`/files/${second}`), outsider), 403, 'A103403');
    // A customer may not see an operator's task file.
    expectError(await send('GET', front(`/files/${second}`), anna), 403, 'A103404');
    // Another tenant does not know the file.
    expectError(
      await send('GET', `/v1/${session.rival.tenant}/back/files/${second}`, session.rivalOperatorToken),
      404,
      'L404',
    );
    // Linking another tenant's file is L404 too.
    const rivalFile = await uploadPng(
      session.rivalOperatorToken,
      `/v1/${session.rival.tenant}/back/files?branchId=${session.rival.branchId}`,
    );
    expectError(await patch([rivalFile]), 404, 'L404');
  });

  it('links files to damages; the outsider gets A106403', async () => {
    const uuid = await uploadPng();
    const reported = await session.stack.call('POST', back('/damages'), {
      token: operator,
      body: { vehicleId: vehicle.id, part: 'mirror', files: [uuid] },
    });
    expect(reported.status).toBe(201);
    expect(reported.body.files).toEqual([expect.objectContaining({ uuid })]);
    expectError(
      await session.stack.call('PATCH', back(`/damages/${reported.body.id}`), {
        token: operator,
        body: { files: [uuid, uuid] },
      }),
      409,
      'L407',
    );
    expectError(await send('GET', back(`/files/${uuid}`), outsider), 403, 'A106403');
    const { bytes } = await download(back(`/files/${uuid}`), operator);
    expect(bytes.equals(png)).toBe(true);
    // An unlinked upload is its uploader's alone.
    const own = await uploadPng(outsider, back(`/files?branchId=${session.seed.otherBranchId}`));
    expect((await send('GET', back(`/files/${own}`), outsider)).status).toBe(303);
    expectError(await send('GET', back(`/files/${uuid}/link`), outsider), 403, 'A106403');
  });

  it('lets a customer link files to their own rental until one hour after it ended (A105)', async () => {
    const [annaId, benId] = session.seed.customerIds;
    const recent = await endedRental(annaId!, 30 * 60_000);
    const old = await endedRental(annaId!, 2 * 3_600_000);
    const bens = await endedRental(benId!, 60_000);
    const photo = await uploadPng(anna, front('/files'));
    const link = (rentalId: number, files: string[], token = anna) =>
      session.stack.call('POST', front(`/rentals/${rentalId}/files`), { token, body: { files } });
    const linked = await link(recent, [photo]);
    expect(linked.status).toBe(201);
    expect(linked.body).toEqual([expect.objectContaining({ uuid: photo })]);
    const event = await session.em().findOne(Event, { type: 'RENTAL_FILES_LINKED', rentalId: recent });
    expect(event?.payload).toEqual({ files: [photo] });
    expectError(await link(recent, [photo]), 409, 'L407');
    expectError(await link(old, [photo]), 403, 'A105410');
    expectError(await link(bens, [photo]), 403, 'A105404');
    expectError(await link(999_999, [photo]), 404, 'R404');
    // Ben cannot link Anna's upload to his rental, nor see it.
    expectError(await link(bens, [photo], ben), 404, 'L404');
    expectError(await send('GET', front(`/files/${photo}`), ben), 403, 'A105404');
    // Anna downloads it; the operator sees it on the rental, the outsider does not.
    expect((await download(front(`/files/${photo}`), anna)).bytes.equals(png)).toBe(true);
    expect((await download(back(`/files/${photo}`), operator)).bytes.equals(png)).toBe(true);
    expectError(await send('GET', back(`/files/${photo}`), outsider), 403, 'A105403');
    const listed = await session.stack.call('GET', back(`/rentals/${recent}/files`), { token: operator });
    expect(listed.body).toEqual([expect.objectContaining({ uuid: photo })]);
    expect(
      (await session.stack.call('GET', front(`/rentals/${recent}/files`), { token: anna })).body,
    ).toHaveLength(1);
    expect(await session.em().count(FileLink, { entityType: 'RENTAL', entityId: String(recent) })).toBe(1);
  });

  it('seeds a demo photo in the object store, linked to the demo issue comment or a damage', async () => {
    const photo = await session.em().findOneOrFail(StoredFile, { fileName: 'brake-lever.png' });
    const links = await session.em().find(FileLink, { file: photo });
    expect(links.map((link) => link.entityType)).toEqual([expect.stringMatching(/^(COMMENT|DAMAGE)$/)]);
    const { bytes } = await download(back(`/files/${photo.uuid}`), operator);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(photo.sha256);
  });
});
