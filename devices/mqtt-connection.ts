// Opening MQTT 3.1.1 connections with a bounded wait, shared by the backend command client and the simulator.
import { Socket } from 'node:net';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { errorMessage, silentDeviceLog, type DeviceLog } from './device-log.js';

/** How long `connectMqtt` waits for the first CONNACK unless told otherwise. */
export const defaultMqttConnectTimeoutMs = 5000;

/** Options for `connectMqtt`; everything has a sensible default. */
export interface ConnectMqttOptions {
  /** Give up (and close the client) if the first connection is not up within this time. */
  timeoutMs?: number;
  /** Last will the broker publishes if this connection dies without a DISCONNECT. */
  will?: IClientOptions['will'];
  /** MQTT clean session flag; default true. */
  clean?: boolean;
  /** Delay between automatic reconnects after the first connection; default 1000 ms. */
  reconnectPeriodMs?: number;
  /** Receives connection errors and reconnects after the first connection is up. */
  log?: DeviceLog;
}

/** Raised when the broker cannot be reached in time, so callers can tell it from protocol errors. */
export class MqttConnectError extends Error {
  override readonly name = 'MqttConnectError';

  constructor(
    readonly url: string,
    readonly clientId: string,
    readonly timeoutMs: number,
    override readonly cause?: Error,
  ) {
    super(
      `Could not connect to MQTT broker ${url} as "${clientId}" within ${timeoutMs} ms` +
        (cause ? `: ${cause.message}` : ''),
    );
  }
}

/** Hides the password of `mqtt://user:pass@host` URLs before they reach logs or error messages. */
export function redactMqttUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/**
 * Connects with MQTT 3.1.1 (protocolVersion 4) and resolves once connected; rejects with
 * `MqttConnectError` and closes the client if that takes longer than `timeoutMs`. After the first
 * connection the client reconnects on its own; errors then go to `log` instead of crashing the process.
 */
export function connectMqtt(
  url: string,
  clientId: string,
  options: ConnectMqttOptions = {},
): Promise<MqttClient> {
  const timeoutMs = options.timeoutMs ?? defaultMqttConnectTimeoutMs;
  const log = options.log ?? silentDeviceLog;
  const safeUrl = redactMqttUrl(url);
  return new Promise((resolve, reject) => {
    let client: MqttClient;
    try {
      client = mqtt.connect(url, {
        clientId,
        protocolVersion: 4,
        clean: options.clean ?? true,
        connectTimeout: timeoutMs,
        reconnectPeriod: options.reconnectPeriodMs ?? 1000,
        will: options.will,
      });
    } catch (error) {
      reject(new MqttConnectError(safeUrl, clientId, timeoutMs, error instanceof Error ? error : undefined));
      return;
    }
    let lastError: Error | undefined;
    const rememberError = (error: Error): void => {
      lastError = error;
    };
    const timer = setTimeout(() => {
      client.removeListener('connect', onConnect);
      client.removeListener('error', rememberError);
      client.end(true);
      reject(new MqttConnectError(safeUrl, clientId, timeoutMs, lastError));
    }, timeoutMs);
    const onConnect = (): void => {
      clearTimeout(timer);
      client.removeListener('error', rememberError);
      attachConnectionLogging(client, clientId, safeUrl, log);
      resolve(client);
    };
    client.on('error', rememberError);
    client.on('connect', () => disableNagle(client));
    client.once('connect', onConnect);
  });
}

/**
 * Commands and replies are tiny packets that each wait for an answer; with Nagle's algorithm a
 * command round trip costs ~90 ms of pure delayed-ACK latency on localhost instead of ~1 ms.
 */
function disableNagle(client: MqttClient): void {
  const stream: unknown = client.stream;
  if (stream instanceof Socket) stream.setNoDelay(true);
}

/** Keeps an 'error' listener attached for the client's life; an unhandled 'error' event would kill the process. */
function attachConnectionLogging(client: MqttClient, clientId: string, url: string, log: DeviceLog): void {
  client.on('error', (error) => log('warn', `MQTT client ${clientId} error: ${errorMessage(error)}`));
  client.on('offline', () => log('warn', `MQTT client ${clientId} lost its connection to ${url}`));
  client.on('reconnect', () => log('debug', `MQTT client ${clientId} reconnecting to ${url}`));
  client.on('connect', () => log('info', `MQTT client ${clientId} connected to ${url}`));
}
