// One structured logger for every fleetflow process (API, worker, scripts): JSON lines on stdout, or
// human-readable output through pino-pretty when a developer watches a terminal.
import { pino, type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  /** Minimum level (`trace` … `fatal`, or `silent`); defaults to `LOG_LEVEL`, then `info`. */
  level?: string;
  /** Where JSON lines go instead of stdout (tests collect them); disables pretty output. */
  destination?: DestinationStream;
  /** Force pretty output on or off; by default on when stdout is a TTY outside production. */
  pretty?: boolean;
  /** Environment to read `LOG_LEVEL` and `NODE_ENV` from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** Field names whose values never reach a log line, at any of the first four levels of nesting. */
export const redactedKeys: readonly string[] = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'newPassword',
  'secret',
  'client_secret',
  'clientSecret',
  'jwtSecret',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
];

/** pino redaction paths for {@link redactedKeys} (`key`, `*.key`, `*.*.key`, `*.*.*.key`). */
export const redactPaths: readonly string[] = redactedKeys.flatMap((key) => {
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const join = (prefix: string) => (segment.startsWith('[') ? `${prefix}${segment}` : `${prefix}.${segment}`);
  return [segment, join('*'), join('*.*'), join('*.*.*')];
});

const levels = new Set([...Object.keys(pino.levels.values), 'silent']);

/** The level from the option or `LOG_LEVEL`; unknown names are a configuration error. */
export function logLevel(level: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = (level ?? env.LOG_LEVEL ?? '').trim().toLowerCase() || 'info';
  if (!levels.has(chosen)) {
    throw new Error(`LOG_LEVEL must be one of ${[...levels].join(', ')}, got "${chosen}"`);
  }
  return chosen;
}

/** Pretty output only for a person at a terminal, never in production. */
export function wantsPrettyOutput(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(process.stdout.isTTY) && env.NODE_ENV !== 'production';
}

/**
 * A pino logger for one process or component (`name` appears on every line). JSON lines with ISO
 * timestamps and level labels by default; pino-pretty (in-process stream, so it works under tsx and
 * jest without worker threads) when stdout is a TTY and NODE_ENV is not production.
 */
export function createLogger(name: string, options: CreateLoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const usePretty = options.destination ? false : (options.pretty ?? wantsPrettyOutput(env));
  const base: PinoOptions = {
    name,
    level: logLevel(options.level, env),
    redact: { paths: [...redactPaths], censor: '[Redacted]' },
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (usePretty) {
    return pino(
      base,
      pretty({
        sync: true,
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      }),
    );
  }
  const json: PinoOptions = { ...base, formatters: { level: (label) => ({ level: label }) } };
  return options.destination ? pino(json, options.destination) : pino(json);
}
