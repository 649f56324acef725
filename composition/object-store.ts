// The object store of the processes: the configured S3 endpoint's (S3_* variables), created lazily per
// process; without S3_ENDPOINT every call fails and says what to configure.
import { loadConfig } from '../platform/config.js';
import {
  s3ObjectStore,
  s3SettingsOf,
  unconfiguredObjectStore,
  type ObjectStore,
} from '../platform/object-store.js';

let configured: { endpoint: string | undefined; bucket: string; store: ObjectStore } | undefined;

/**
 * The object store of the environment's configuration (one client per process and endpoint; the bucket
 * is created by whoever starts the store: `npm start`, the API process, the tests' global setup).
 */
export function configuredObjectStore(env: NodeJS.ProcessEnv = process.env): ObjectStore {
  const config = loadConfig(env);
  if (configured && configured.endpoint === config.s3Endpoint && configured.bucket === config.s3Bucket)
    return configured.store;
  const settings = s3SettingsOf(config);
  const store = settings ? s3ObjectStore(settings) : unconfiguredObjectStore();
  configured = { endpoint: config.s3Endpoint, bucket: config.s3Bucket, store };
  return store;
}
