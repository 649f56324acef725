// File transfer through the API beside the object store's own client, in the same run: uploads of 1 MiB
// files (POST /files, multipart, through the API into versitygw) against PutObject of the same bytes with
// the AWS SDK, and downloads (GET /files/{uuid} → 303 → the pre-signed GET) against GetObject.
// Needs no Temporal or MQTT: PostgreSQL (embedded), versitygw and the HTTP app.
// Usage: npm run bench:files [-- files concurrency]   (defaults: 60, 4)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import { loadConfig } from '../platform/config.js';
import { s3ObjectStore } from '../platform/object-store.js';
import { ensureVersitygw, startVersitygw } from '../platform/versitygw.js';
import { percentile } from './lifecycle-stats.js';
import { serveApi, startBenchDatabase } from './api-stack.js';

process.env.LOG_LEVEL ??= 'warn';
const files = Number(process.argv[2] ?? 60);
const concurrency = Number(process.argv[3] ?? 4);
const SIZE = 1024 * 1024;

const objectsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-objects-'));
const gateway = await startVersitygw(await ensureVersitygw(loadConfig()), {
  dataDir: objectsDir,
  accessKeyId: 'FLEETFLOWBENCH',
  secretAccessKey: randomBytes(24).toString('base64url'),
});
Object.assign(process.env, {
  S3_ENDPOINT: gateway.endpoint,
  S3_ACCESS_KEY_ID: gateway.accessKeyId,
  S3_SECRET_ACCESS_KEY: gateway.secretAccessKey,
});
const config = loadConfig();
const store = s3ObjectStore({
  endpoint: gateway.endpoint,
  region: config.s3Region,
  bucket: config.s3Bucket,
  accessKeyId: gateway.accessKeyId,
  secretAccessKey: gateway.secretAccessKey,
  forcePathStyle: true,
});
await store.ensureBucket();
const database = await startBenchDatabase();

/** Runs `count` operations `concurrency` at a time; answers each one's milliseconds and the wall time. */
async function run(count: number, operation: (index: number) => Promise<void>) {
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const at = performance.now();
        await operation(index);
        durations.push(performance.now() - at);
      }
    }),
  );
  return { durations, wallMs: performance.now() - started };
}

function line(name: string, result: { durations: number[]; wallMs: number }) {
  const mibPerSecond = (result.durations.length * SIZE) / (1024 * 1024) / (result.wallMs / 1000);
  return {
    name,
    files: result.durations.length,
    'MiB/s': Number(mibPerSecond.toFixed(1)),
    'files/s': Number((result.durations.length / (result.wallMs / 1000)).toFixed(1)),
    'p50 ms': Number(percentile(result.durations, 50).toFixed(1)),
    'p99 ms': Number(percentile(result.durations, 99).toFixed(1)),
  };
}

try {
  const api = await serveApi({
    orm: database.orm,
    // Never connected: no route of this benchmark starts a workflow.
    temporal: new Client(),
    taskQueue: 'bench',
    tenant: database.seed.tenant,
  });
  const base = `${api.origin}/v1/${database.seed.tenant}/back`;
  const auth = { authorization: `Bearer ${api.token}` };
  const payloads = Array.from({ length: files }, () => randomBytes(SIZE));
  const boundary = `----fleetflow-bench-${randomUUID()}`;
  const multipart = (data: Buffer, index: number) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench-${index}.bin"\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n`,
      ),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
  const uuids: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(what);
  };

  // Warm both paths (connections, prepared statements, JIT) before measuring.
  for (let i = 0; i < 3; i++) {
    await fetch(`${base}/files?branchId=${database.seed.branchId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipart(payloads[i]!, i),
    }).then((r) => r.arrayBuffer());
    await store.client.send(
      new PutObjectCommand({ Bucket: store.bucket, Key: `bench/warm-${i}`, Body: payloads[i]! }),
    );
  }

  const apiUpload = await run(files, async (index) => {
    const response = await fetch(`${base}/files?branchId=${database.seed.branchId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipart(payloads[index]!, index),
    });
    const body = (await response.json()) as { uuid: string };
    check(response.status === 201, `upload answered ${response.status}: ${JSON.stringify(body)}`);
    uuids[index] = body.uuid;
  });
  const directPut = await run(files, async (index) => {
    await store.client.send(
      new PutObjectCommand({
        Bucket: store.bucket,
        Key: `bench/direct-${index}`,
        Body: payloads[index]!,
        ContentType: 'application/octet-stream',
      }),
    );
  });
  const apiDownload = await run(files, async (index) => {
    const redirect = await fetch(`${base}/files/${uuids[index]}`, { headers: auth, redirect: 'manual' });
    check(redirect.status === 303, `download answered ${redirect.status}`);
    const stored = await fetch(redirect.headers.get('location')!);
    const bytes = await stored.arrayBuffer();
    check(bytes.byteLength === SIZE, `the store answered ${bytes.byteLength} bytes`);
  });
  const directGet = await run(files, async (index) => {
    const object = await store.client.send(
      new GetObjectCommand({ Bucket: store.bucket, Key: `bench/direct-${index}` }),
    );
    const bytes = await object.Body!.transformToByteArray();
    check(bytes.byteLength === SIZE, `GetObject answered ${bytes.byteLength} bytes`);
  });

  const rows = [
    line('upload: POST /files (API → versitygw)', apiUpload),
    line('upload: PutObject (AWS SDK → versitygw)', directPut),
    line('download: GET /files/{uuid} → 303 → pre-signed GET', apiDownload),
    line('download: GetObject (AWS SDK)', directGet),
  ];
  console.log(`\n${files} files of 1 MiB, ${concurrency} at a time, ${os.cpus().length} CPUs\n`);
  console.table(rows);
  const ratio = (a: { durations: number[]; wallMs: number }, b: { durations: number[]; wallMs: number }) =>
    (b.wallMs / a.wallMs).toFixed(2);
  console.log(`API upload at ${ratio(apiUpload, directPut)}× the SDK's PutObject throughput`);
  console.log(`API download at ${ratio(apiDownload, directGet)}× the SDK's GetObject throughput`);
  await api.close();
} finally {
  store.close();
  await database.stop();
  await gateway.stop();
  await fs.rm(objectsDir, { recursive: true, force: true });
}
