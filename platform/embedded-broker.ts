import type { EventEmitter } from 'node:events';
import net from 'node:net';
import { Aedes } from 'aedes';

/** Options for startEmbeddedBroker. */
export interface EmbeddedBrokerOptions {
  /** TCP port; 0 lets the OS pick a free one (the URL carries the real port). */
  port: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
}

/** A running embedded MQTT broker. */
export interface EmbeddedBrokerHandle {
  /** mqtt://<host>:<port>, connectable from this machine. */
  url: string;
  /** Disconnects all clients and closes the listener; idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts an in-process aedes MQTT broker on a plain TCP listener, so the devices, the simulator and
 * the tests need no Mosquitto. Aedes speaks MQTT 3.1.1 (and 3.1): MQTT 5 clients are refused with
 * CONNACK "unacceptable protocol version", so clients must use protocolVersion 4 (mqtt.js default).
 * Messages and sessions are kept in memory only.
 */
export async function startEmbeddedBroker(options: EmbeddedBrokerOptions): Promise<EmbeddedBrokerHandle> {
  const host = options.host ?? '127.0.0.1';
  const broker = await Aedes.createBroker();
  watchBrokerErrors(broker);
  // noDelay: without it every command round trip waits on Nagle's algorithm (~90 ms instead of ~2 ms).
  const server = net.createServer({ noDelay: true }, (socket) => broker.handle(socket));
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  try {
    await listen(server, options.port, host);
  } catch (err) {
    await closeBroker(broker);
    throw new Error(
      `Embedded MQTT broker cannot listen on ${host}:${options.port}: ${(err as Error).message}`,
    );
  }
  const port = (server.address() as net.AddressInfo).port;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await closeBroker(broker);
      for (const socket of sockets) socket.destroy();
      await closed;
    })();
    return stopping;
  };
  return { url: `mqtt://${connectableHost(host)}:${port}`, stop };
}

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeBroker(broker: Aedes): Promise<void> {
  return new Promise((resolve) => broker.close(() => resolve()));
}

/** Client errors are routine (devices dropping off); broker errors are not and must not crash the process. */
function watchBrokerErrors(broker: Aedes): void {
  const debug = process.env.DEBUG_EMBEDDED === '1';
  (broker as unknown as EventEmitter).on('error', (err: Error) => {
    process.stderr.write(`[mqtt] broker error: ${err.message}\n`);
  });
  broker.on('clientError', (client, err) => {
    if (debug) process.stderr.write(`[mqtt] client ${client.id} error: ${err.message}\n`);
  });
  broker.on('connectionError', (_client, err) => {
    if (debug) process.stderr.write(`[mqtt] connection error: ${err.message}\n`);
  });
}

/** A wildcard bind address is not connectable as such; point the URL at loopback instead. */
function connectableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return net.isIPv6(host) ? `[${host}]` : host;
}
