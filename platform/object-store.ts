// The object store files live in: a small port (put, pre-signed GET, head, delete) the routes, activities
// and seed depend on, and its one adapter, the AWS SDK v3 S3 client, which talks to any S3-compatible
// endpoint (AWS S3, MinIO, Ceph, versitygw — the embedded default of `npm start` and the tests).
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  GetObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { FleetflowConfig } from './config.js';

/** What the application needs from an object store. */
export interface ObjectStore {
  /** The bucket every object is kept in. */
  readonly bucket: string;
  /** Stores an object (overwriting one with the same key); rejects when the store refuses or is unreachable. */
  put(key: string, body: Uint8Array, options: { contentType: string; sha256Hex?: string }): Promise<void>;
  /**
   * A pre-signed GET address of an object, valid for `expiresInSeconds`; the store answers it with the
   * given Content-Disposition and Content-Type (S3's `response-content-*` overrides). No network call.
   */
  presignedGetUrl(
    key: string,
    options: { expiresInSeconds: number; contentDisposition?: string; contentType?: string },
  ): Promise<string>;
  /** What the store holds under a key, or undefined when nothing. */
  head(key: string): Promise<{ size: number; contentType?: string; etag?: string } | undefined>;
  /** Removes an object (nothing when it is absent). */
  delete(key: string): Promise<void>;
  /**
   * Stores a stream of unknown length as a multipart upload (`@aws-sdk/lib-storage`, overwriting an object
   * with the same key); resolves with the bytes stored. The stream is read only as fast as parts are
   * sent: memory holds `STREAM_QUEUE_SIZE` parts in flight and the one being filled (parts of
   * `STREAM_PART_BYTES`, so an object of at most 10,000 parts, ~48 GiB). Exports write their CSV so.
   */
  putStream(
    key: string,
    body: Readable,
    options: { contentType: string; contentDisposition?: string },
  ): Promise<{ size: number }>;
}

/** The part size of `putStream`'s multipart uploads: S3's minimum, 5 MiB (the last part may be smaller). */
export const STREAM_PART_BYTES = 5 * 1024 * 1024;

/** How many parts of one `putStream` are sent at once. */
export const STREAM_QUEUE_SIZE = 2;

/** Where the object store is and how to sign for it. */
export interface S3Settings {
  /** e.g. `http://127.0.0.1:7070`; undefined: AWS S3 of `region`. */
  endpoint?: string;
  /** The address pre-signed links name, when clients reach the store elsewhere than the API does. */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  /** Static credentials; undefined: the SDK's default chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which S3-compatible servers need. */
  forcePathStyle: boolean;
}

/** The object store settings of a configuration, or undefined when no S3 endpoint is configured. */
export function s3SettingsOf(config: FleetflowConfig): S3Settings | undefined {
  if (!config.s3Endpoint) return undefined;
  return {
    endpoint: config.s3Endpoint,
    publicEndpoint: config.s3PublicEndpoint,
    region: config.s3Region,
    bucket: config.s3Bucket,
    accessKeyId: config.s3AccessKeyId,
    secretAccessKey: config.s3SecretAccessKey,
    forcePathStyle: config.s3ForcePathStyle,
  };
}

function clientFor(settings: S3Settings, endpoint: string | undefined): S3Client {
  return new S3Client({
    endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials:
      settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    // Checksums only where S3 demands them: S3-compatible stores do not all know the newer CRC trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer fails the call (L303 for uploads) instead of holding the request.
    requestHandler: { connectionTimeout: 3000, requestTimeout: 30_000 },
    maxAttempts: 3,
  });
}

/** An S3 object store: the SDK's client (also exposed for tools that compare against it, the bench). */
export interface S3ObjectStore extends ObjectStore {
  readonly client: S3Client;
  /** Creates the bucket when it does not exist yet (at start). */
  ensureBucket(): Promise<void>;
  close(): void;
}

/** The S3 adapter of the port. */
export function s3ObjectStore(settings: S3Settings): S3ObjectStore {
  const client = clientFor(settings, settings.endpoint);
  const signer =
    settings.publicEndpoint && settings.publicEndpoint !== settings.endpoint
      ? clientFor(settings, settings.publicEndpoint)
      : client;
  const Bucket = settings.bucket;
  return {
    bucket: Bucket,
    client,
    async put(key, body, { contentType, sha256Hex }) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: body,
          ContentLength: body.byteLength,
          ContentType: contentType,
          ...(sha256Hex ? { Metadata: { sha256: sha256Hex } } : {}),
        }),
      );
    },
    presignedGetUrl(key, { expiresInSeconds, contentDisposition, contentType }) {
      return getSignedUrl(
        signer,
        new GetObjectCommand({
          Bucket,
          Key: key,
          ResponseContentDisposition: contentDisposition,
          ResponseContentType: contentType,
        }),
        { expiresIn: expiresInSeconds },
      );
    },
    async head(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: head.ContentLength ?? 0, contentType: head.ContentType, etag: head.ETag };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async putStream(key, body, { contentType, contentDisposition }) {
      let size = 0;
      body.on('data', (chunk: Buffer) => (size += chunk.length));
      const upload = new Upload({
        client,
        params: {
          Bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          ContentDisposition: contentDisposition,
        },
        partSize: STREAM_PART_BYTES,
        queueSize: STREAM_QUEUE_SIZE,
        leavePartsOnError: false,
      });
      await upload.done();
      return { size };
    },
    async ensureBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        try {
          await client.send(new CreateBucketCommand({ Bucket }));
        } catch (createErr) {
          // Another process created it in between.
          const name = (createErr as { name?: string }).name;
          if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw createErr;
        }
      }
    },
    close() {
      client.destroy();
      if (signer !== client) signer.destroy();
    },
  };
}

function isNotFound(err: unknown): boolean {
  if (err instanceof S3ServiceException)
    return err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey';
  return (err as { name?: string }).name === 'NotFound';
}

/** The configured object store with its bucket created, or undefined when no S3 endpoint is configured. */
export async function connectObjectStore(config: FleetflowConfig): Promise<S3ObjectStore | undefined> {
  const settings = s3SettingsOf(config);
  if (!settings) return undefined;
  const store = s3ObjectStore(settings);
  await store.ensureBucket();
  return store;
}

/**
 * The store of a process started without S3_ENDPOINT (`npm run api` alone, a tool): every call fails with
 * the reason, so an upload answers L303 and says what to configure; nothing pretends to store a file.
 */
export function unconfiguredObjectStore(): ObjectStore {
  const fail = (): Promise<never> =>
    Promise.reject(
      new Error('no object store is configured: set S3_ENDPOINT (npm start runs versitygw when it is unset)'),
    );
  return { bucket: '', put: fail, presignedGetUrl: fail, head: fail, delete: fail, putStream: fail };
}
