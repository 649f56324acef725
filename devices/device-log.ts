// Minimal logging seam for the device modules, so the backend can plug in its logger and tests stay quiet.

/** Severity of a device-side log line. */
export type DeviceLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Sink for device-side log lines; inject one to route logs, omit it to stay silent. */
export type DeviceLog = (level: DeviceLogLevel, message: string) => void;

/** Default sink that drops everything, so library code never writes to the console on its own. */
export const silentDeviceLog: DeviceLog = () => undefined;

const severity: Record<string, number> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
  fatal: 5,
  silent: 6,
};

/**
 * Console sink with a short prefix, for CLI entry points; `debug` lines only when `verbose`, and nothing
 * below `minimum` (a pino level name, as LOG_LEVEL gives the other processes: `silent` drops everything).
 */
export function consoleDeviceLog(prefix: string, verbose = false, minimum = 'info'): DeviceLog {
  const floor = severity[minimum] ?? severity.info!;
  return (level, message) => {
    if (level === 'debug' && !verbose) return;
    if (severity[level]! < Math.min(floor, verbose ? severity.debug! : floor)) return;
    const line = `[${prefix}] ${level.toUpperCase()} ${message}`;
    if (level === 'error' || level === 'warn') console.error(line);
    else console.log(line);
  };
}

/** Message of an unknown thrown value, for log lines. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
