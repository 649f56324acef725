// Backend side of vehicle commands: publish a command, wait for the correlated reply or a timeout.
import type { MqttClient } from 'mqtt';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { errorMessage, silentDeviceLog, type DeviceLog } from './device-log.js';
import {
  allVehicleRepliesFilter,
  commandTopic,
  encodeMessage,
  isValidTopicSegment,
  maxCommandIdLength,
  parseVehicleCommandReply,
  parseVehicleTopic,
  vehicleChannelDelivery,
  type VehicleCommandMessage,
  type VehicleCommandName,
  type VehicleCommandReply,
} from './protocol.js';

export { connectMqtt, MqttConnectError, type ConnectMqttOptions } from './mqtt-connection.js';

/** One command to deliver; `commandId` is the idempotency key, so retries must reuse it. */
export interface SendVehicleCommandInput {
  tenant: string;
  vehicleId: string;
  command: VehicleCommandName;
  commandId: string;
  params?: Record<string, unknown>;
  /** How long to wait for the reply before rejecting with `VehicleCommandTimeoutError`. */
  timeoutMs: number;
  /** Validity of the message on the vehicle (`expiresAt - issuedAt`); defaults to `timeoutMs`. */
  expiresInMs?: number;
}

/** Options for `VehicleCommandClient`. */
export interface VehicleCommandClientOptions {
  log?: DeviceLog;
  /** Clock for `issuedAt`/`expiresAt`; injectable for tests. */
  now?: () => Date;
  /**
   * Called once per sent command when it settles: the reply's status, `timeout` or `failed`, and the
   * seconds since it was sent (metrics: platform/resource-metrics.ts).
   */
  onSettled?: (command: VehicleCommandName, outcome: string, seconds: number) => void;
}

/** Raised when a vehicle did not answer in time, so callers can retry with the same commandId. */
export class VehicleCommandTimeoutError extends Error {
  override readonly name = 'VehicleCommandTimeoutError';

  constructor(
    readonly tenant: string,
    readonly vehicleId: string,
    readonly command: VehicleCommandName,
    readonly commandId: string,
    readonly timeoutMs: number,
  ) {
    super(`Vehicle ${tenant}/${vehicleId} did not answer ${command} (${commandId}) within ${timeoutMs} ms`);
  }
}

/** Raised for sends that can no longer complete because the client was closed. */
export class VehicleCommandClientClosedError extends Error {
  override readonly name = 'VehicleCommandClientClosedError';

  constructor(commandId: string) {
    super(`VehicleCommandClient closed before command ${commandId} was answered`);
  }
}

interface PendingCommand {
  readonly tenant: string;
  readonly vehicleId: string;
  readonly command: VehicleCommandName;
  readonly promise: Promise<VehicleCommandReply>;
  resolve(reply: VehicleCommandReply): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
  /** The command's span (a no-op one when the process does not trace), ended with the answer. */
  readonly span: Span;
}

/**
 * Sends commands to vehicles over an already-connected MQTT client and correlates replies by
 * commandId. One instance per process is enough: it subscribes once to every tenant's replies.
 */
export class VehicleCommandClient {
  private readonly pending = new Map<string, PendingCommand>();
  private readonly subscribed: Promise<void>;
  private readonly log: DeviceLog;
  private readonly now: () => Date;
  private readonly onSettled: NonNullable<VehicleCommandClientOptions['onSettled']>;
  private closed = false;

  constructor(
    private readonly mqtt: MqttClient,
    options: VehicleCommandClientOptions = {},
  ) {
    this.log = options.log ?? silentDeviceLog;
    this.now = options.now ?? (() => new Date());
    this.onSettled = options.onSettled ?? (() => undefined);
    this.mqtt.on('message', this.onMessage);
    this.subscribed = this.subscribeToReplies();
    // Sends surface a failed subscription; this only prevents an unhandled rejection when nothing is sent.
    this.subscribed.catch(() => undefined);
  }

  /** Resolves once the broker acknowledged the reply subscription; `send` waits for it anyway. */
  ready(): Promise<void> {
    return this.subscribed;
  }

  /**
   * Publishes the command and resolves with the vehicle's reply, whatever its status; rejects with
   * `VehicleCommandTimeoutError` when no reply arrives in time. A send for a commandId that is
   * already in flight joins the pending one instead of publishing again.
   */
  send(input: SendVehicleCommandInput): Promise<VehicleCommandReply> {
    if (this.closed) return Promise.reject(new VehicleCommandClientClosedError(input.commandId));
    const invalidInput = validateSendInput(input);
    if (invalidInput) return Promise.reject(invalidInput);
    const existing = this.pending.get(input.commandId);
    if (existing) return this.join(existing, input);
    const entry = this.createPending(input);
    this.pending.set(input.commandId, entry);
    // The clock starts now, so a send also times out while the reply subscription is still pending.
    entry.timer = setTimeout(() => this.expire(entry, input), input.timeoutMs);
    this.publishWhenSubscribed(entry, input, this.buildMessage(input, entry.span));
    return entry.promise;
  }

  /** Number of commands still waiting for a reply; for metrics and tests. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Stops listening, clears every timer and rejects pending sends; the MQTT connection stays with its owner. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mqtt.removeListener('message', this.onMessage);
    for (const [commandId, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(new VehicleCommandClientClosedError(commandId));
    }
    this.pending.clear();
  }

  private subscribeToReplies(): Promise<void> {
    const { qos } = vehicleChannelDelivery.replies;
    return new Promise((resolve, reject) => {
      this.mqtt.subscribe(allVehicleRepliesFilter, { qos }, (error, granted) => {
        if (error) return reject(error);
        if (granted?.some((grant) => grant.qos === 128)) {
          return reject(new Error(`Broker refused subscription to ${allVehicleRepliesFilter}`));
        }
        resolve();
      });
    });
  }

  private join(existing: PendingCommand, input: SendVehicleCommandInput): Promise<VehicleCommandReply> {
    const sameTarget =
      existing.tenant === input.tenant &&
      existing.vehicleId === input.vehicleId &&
      existing.command === input.command;
    if (sameTarget) return existing.promise;
    return Promise.reject(
      new Error(
        `commandId ${input.commandId} is already in flight for ${existing.command} on ` +
          `${existing.tenant}/${existing.vehicleId}; a commandId must identify exactly one command`,
      ),
    );
  }

  private createPending(input: SendVehicleCommandInput): PendingCommand {
    const started = performance.now();
    const settled = (outcome: string) =>
      this.onSettled(input.command, outcome, (performance.now() - started) / 1000);
    // One span from publishing to the vehicle's answer, a child of the caller's (the activity's) span.
    const span = tracer().startSpan(`vehicle command ${input.command}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'messaging.system': 'mqtt',
        'messaging.destination.name': commandTopic(input.tenant, input.vehicleId),
        'fleetflow.vehicle.id': input.vehicleId,
        'fleetflow.command': input.command,
        'fleetflow.command.id': input.commandId,
      },
    });
    let resolve!: (reply: VehicleCommandReply) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<VehicleCommandReply>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return {
      tenant: input.tenant,
      vehicleId: input.vehicleId,
      command: input.command,
      promise,
      resolve: (reply) => {
        span.setAttribute('fleetflow.command.status', reply.status);
        if (reply.status !== 'OK') span.setStatus({ code: SpanStatusCode.ERROR, message: reply.status });
        span.end();
        settled(reply.status);
        resolve(reply);
      },
      reject: (error) => {
        span.recordException(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        span.end();
        settled(error instanceof VehicleCommandTimeoutError ? 'timeout' : 'failed');
        reject(error);
      },
      span,
    };
  }

  private publishWhenSubscribed(
    entry: PendingCommand,
    input: SendVehicleCommandInput,
    message: VehicleCommandMessage,
  ): void {
    this.subscribed.then(
      () => this.publish(entry, input, message),
      (error: unknown) => this.fail(input.commandId, entry, asError(error)),
    );
  }

  private publish(
    entry: PendingCommand,
    input: SendVehicleCommandInput,
    message: VehicleCommandMessage,
  ): void {
    if (this.pending.get(input.commandId) !== entry) return;
    const topic = commandTopic(input.tenant, input.vehicleId);
    const { qos, retain } = vehicleChannelDelivery.commands;
    this.mqtt.publish(topic, encodeMessage(message), { qos, retain }, (error) => {
      if (error) this.fail(input.commandId, entry, error);
    });
    this.log('debug', `sent ${input.command} (${input.commandId}) to ${input.tenant}/${input.vehicleId}`);
  }

  private buildMessage(input: SendVehicleCommandInput, span: Span): VehicleCommandMessage {
    const issuedAt = this.now();
    const expiresAt = new Date(issuedAt.getTime() + (input.expiresInMs ?? input.timeoutMs));
    // The span's W3C context travels in the payload (MQTT 3.1.1 has no user properties); none untraced.
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier);
    return {
      commandId: input.commandId,
      command: input.command,
      ...(input.params ? { params: input.params } : {}),
      issuedAt: issuedAt.toISOString(),
      expiresAt: expiresAt.toISOString(),
      ...(carrier.traceparent ? { traceparent: carrier.traceparent } : {}),
    };
  }

  private expire(entry: PendingCommand, input: SendVehicleCommandInput): void {
    if (this.pending.get(input.commandId) !== entry) return;
    this.pending.delete(input.commandId);
    entry.reject(
      new VehicleCommandTimeoutError(
        input.tenant,
        input.vehicleId,
        input.command,
        input.commandId,
        input.timeoutMs,
      ),
    );
  }

  private fail(commandId: string, entry: PendingCommand, error: Error): void {
    if (this.pending.get(commandId) !== entry) return;
    clearTimeout(entry.timer);
    this.pending.delete(commandId);
    entry.reject(error);
  }

  private readonly onMessage = (topic: string, payload: Buffer): void => {
    const parsedTopic = parseVehicleTopic(topic);
    if (parsedTopic?.channel !== 'replies') return;
    const reply = parseVehicleCommandReply(payload);
    if (!reply) {
      this.log('warn', `ignoring malformed reply on ${topic}: ${truncate(payload.toString('utf8'))}`);
      return;
    }
    const entry = this.pending.get(reply.commandId);
    if (!entry) {
      this.log('debug', `ignoring reply for unknown or finished command ${reply.commandId} on ${topic}`);
      return;
    }
    if (entry.tenant !== parsedTopic.tenant || entry.vehicleId !== parsedTopic.vehicleId) {
      this.log('warn', `ignoring reply for ${reply.commandId} from ${topic}: it was sent to another vehicle`);
      return;
    }
    clearTimeout(entry.timer);
    this.pending.delete(reply.commandId);
    entry.resolve(reply);
  };
}

/** The tracer of vehicle commands: OpenTelemetry's no-op one unless the process traces (platform/telemetry.ts). */
const tracer = () => trace.getTracer('fleetflow');

/** Rejects inputs that could never be delivered or answered, before anything is published. */
function validateSendInput(input: SendVehicleCommandInput): Error | undefined {
  if (!isValidTopicSegment(input.tenant) || !isValidTopicSegment(input.vehicleId)) {
    return new RangeError(`Invalid vehicle address ${input.tenant}/${input.vehicleId}`);
  }
  if (input.commandId.length === 0 || input.commandId.length > maxCommandIdLength) {
    return new RangeError(`commandId must be 1..${maxCommandIdLength} characters`);
  }
  if (!(input.timeoutMs > 0) || !Number.isFinite(input.timeoutMs)) {
    return new RangeError(`timeoutMs must be a positive number, got ${input.timeoutMs}`);
  }
  if (input.expiresInMs !== undefined && (!(input.expiresInMs > 0) || !Number.isFinite(input.expiresInMs))) {
    return new RangeError(`expiresInMs must be a positive number, got ${input.expiresInMs}`);
  }
  return undefined;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorMessage(error));
}

function truncate(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
