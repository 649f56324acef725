import { Client, Connection, type ClientOptions } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import { activeTelemetry } from './telemetry.js';

/**
 * The Temporal client interceptors of a process: with tracing on, starts, signals, updates and queries
 * are spans whose context travels to the workflow in its headers (Temporal's OpenTelemetry interceptor).
 */
export function temporalClientInterceptors(): NonNullable<ClientOptions['interceptors']> {
  return activeTelemetry() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {};
}

/** One Temporal client for a process (API, scripts); the caller closes `connection`. */
export async function connectTemporalClient(
  address: string,
  namespace: string,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection, namespace, interceptors: temporalClientInterceptors() }),
    connection,
  };
}
