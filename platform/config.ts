import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/** Repository root, so data and caches resolve the same from every entry point. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every setting the processes read, in one place. Each infrastructure URL is optional:
 * when it is absent, `npm start` runs the embedded default (see README "Configuration").
 */
export interface FleetflowConfig {
  /** PostgreSQL connection string; undefined means "start the embedded PostgreSQL". */
  databaseUrl?: string;
  /** MQTT broker URL; undefined means "start the embedded aedes broker". */
  mqttUrl?: string;
  /** Temporal frontend host:port; undefined means "start the local Temporal dev server". */
  temporalAddress?: string;
  temporalNamespace: string;
  taskQueue: string;
  /**
   * Tenants whose pending work the worker's starters pick up (payments whose workflow never started,
   * recurring tasks without their schedule); undefined: every tenant. WORKER_STARTER_TENANTS, comma-separated.
   */
  starterTenants?: readonly string[];
  apiPort: number;
  apiHost: string;
  publicBaseUrl: string;
  /** Signs access tokens; required by the API (npm start generates one and keeps it in the data directory). */
  jwtSecret?: string;
  tokenTtlSeconds: number;
  dataDir: string;
  cacheDir: string;
  embeddedPostgresPort: number;
  embeddedMqttPort: number;
  temporalDevServerPort: number;
  /**
   * Frontend gRPC port of the real Temporal server `npm run start:cluster` runs (its other services at
   * Temporal's usual distances from it: platform/temporal-cluster.ts); 0 picks free ports for all of them.
   */
  temporalClusterPort: number;
  temporalUiPort: number;
  vehicleCommandTimeoutMs: number;
  simulatorEnabled: boolean;
  /** SMTP server for outgoing mail (`smtp://host:port`); npm start runs a local mail catcher when absent. */
  smtpUrl?: string;
  /** Sender address of outgoing mail. */
  mailFrom: string;
  /** Where the local mail catcher (and the API without SMTP_URL) keeps messages as .eml files. */
  mailOutboxDir: string;
  /** Where the default SMS adapter records messages (one JSON file each). */
  smsOutboxDir: string;
  embeddedSmtpPort: number;
  /** Lifetime of customer refresh tokens. */
  refreshTokenTtlSeconds: number;
  /** Stripe secret key; when set, new payments go through Stripe instead of the sandbox gateway. */
  stripeSecretKey?: string;
  /** Stripe API base URL (`http://127.0.0.1:12111` for stripe-mock); Stripe's own when absent. */
  stripeApiBase?: string;
  /** Signing secret of Stripe's webhooks (`whsec_…`). */
  stripeWebhookSecret?: string;
  /** Signing secret of the sandbox gateway's webhooks (standardwebhooks `whsec_…` base64). */
  sandboxWebhookSecret: string;
  /** How long the sandbox gateway's `timeout` token keeps a first call waiting. */
  sandboxGatewayTimeoutMs: number;
  /** S3-compatible object store for files (`http://host:port`); npm start runs versitygw when absent. */
  s3Endpoint?: string;
  /** The store's address as clients reach it, for pre-signed links (S3_ENDPOINT when absent). */
  s3PublicEndpoint?: string;
  s3Region: string;
  /** The bucket files are kept in (created at start when missing). */
  s3Bucket: string;
  /** Static S3 credentials; the AWS SDK's default chain (environment, profile, role) when absent. */
  s3AccessKeyId?: string;
  s3SecretAccessKey?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible stores need. */
  s3ForcePathStyle: boolean;
  /** Port of the embedded versitygw started by `npm start` without S3_ENDPOINT. */
  embeddedS3Port: number;
  /** Lifetime of the pre-signed download links `GET /files/{uuid}` redirects to. */
  fileLinkTtlSeconds: number;
  /**
   * OTLP/HTTP collector base address (`http://localhost:4318`); when set, the API and the worker export
   * their traces there (`/v1/traces`), and trace nothing otherwise (docs/observability.md).
   */
  otlpEndpoint?: string;
  /**
   * A prebuilt workflow bundle the worker loads instead of bundling at start (`npm run build:workflows`
   * writes it); FLEETFLOW_WORKFLOW_BUNDLE. Rebuild it with the code it was built from.
   */
  workflowBundleFile?: string;
  /**
   * The API checks every answer against its documents and answers 500 0099 to one that breaks them
   * (API_VALIDATE_RESPONSES=true): for development and the tests, off by default.
   */
  validateResponses: boolean;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number.parseInt(raw, 10);
  if (!Number.isFinite(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

/** Reads the configuration from the environment; pure apart from reading `env`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): FleetflowConfig {
  const apiPort = intFromEnv(env, 'API_PORT', 3000);
  const apiHost = env.API_HOST || '0.0.0.0';
  const dataDir = path.resolve(env.FLEETFLOW_DATA_DIR || path.join(repoRoot, '.data'));
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    mqttUrl: env.MQTT_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'fleetflow',
    starterTenants: env.WORKER_STARTER_TENANTS
      ? env.WORKER_STARTER_TENANTS.split(',')
          .map((tenant) => tenant.trim())
          .filter(Boolean)
      : undefined,
    apiPort,
    apiHost,
    publicBaseUrl: env.PUBLIC_BASE_URL || `http://localhost:${apiPort}`,
    jwtSecret: env.JWT_SECRET || undefined,
    tokenTtlSeconds: intFromEnv(env, 'TOKEN_TTL_SECONDS', 3600),
    dataDir,
    cacheDir: path.resolve(
      env.FLEETFLOW_CACHE_DIR ||
        path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'fleetflow'),
    ),
    embeddedPostgresPort: intFromEnv(env, 'EMBEDDED_POSTGRES_PORT', 5432),
    embeddedMqttPort: intFromEnv(env, 'EMBEDDED_MQTT_PORT', 1883),
    temporalDevServerPort: intFromEnv(env, 'TEMPORAL_DEV_SERVER_PORT', 7233),
    temporalClusterPort: intFromEnv(env, 'TEMPORAL_CLUSTER_PORT', 7233),
    temporalUiPort: intFromEnv(env, 'TEMPORAL_UI_PORT', 8233),
    vehicleCommandTimeoutMs: intFromEnv(env, 'VEHICLE_COMMAND_TIMEOUT_MS', 8000),
    simulatorEnabled: (env.SIMULATOR ?? 'on') !== 'off',
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'fleetflow <no-reply@fleetflow.localhost>',
    mailOutboxDir: path.resolve(env.MAIL_OUTBOX_DIR || path.join(dataDir, 'mail')),
    smsOutboxDir: path.resolve(env.SMS_OUTBOX_DIR || path.join(dataDir, 'sms')),
    embeddedSmtpPort: intFromEnv(env, 'EMBEDDED_SMTP_PORT', 2525),
    refreshTokenTtlSeconds: intFromEnv(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400),
    stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
    stripeApiBase: env.STRIPE_API_BASE || undefined,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
    // A development default: the sandbox moves no money; set your own where the webhook is reachable.
    sandboxWebhookSecret:
      env.SANDBOX_GATEWAY_WEBHOOK_SECRET || 'whsec_ZmxlZXRmbG93LXNhbmRib3gtZ2F0ZXdheS1kZXY=',
    sandboxGatewayTimeoutMs: intFromEnv(env, 'SANDBOX_GATEWAY_TIMEOUT_MS', 20_000),
    s3Endpoint: env.S3_ENDPOINT || undefined,
    s3PublicEndpoint: env.S3_PUBLIC_ENDPOINT || undefined,
    s3Region: env.S3_REGION || 'us-east-1',
    s3Bucket: env.S3_BUCKET || 'fleetflow-files',
    s3AccessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    s3SecretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    s3ForcePathStyle: (env.S3_FORCE_PATH_STYLE ?? 'true') !== 'false',
    embeddedS3Port: intFromEnv(env, 'EMBEDDED_S3_PORT', 7070),
    fileLinkTtlSeconds: intFromEnv(env, 'FILE_LINK_TTL_SECONDS', 300),
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    validateResponses: env.API_VALIDATE_RESPONSES === 'true',
    workflowBundleFile: env.FLEETFLOW_WORKFLOW_BUNDLE
      ? path.resolve(env.FLEETFLOW_WORKFLOW_BUNDLE)
      : undefined,
  };
}
