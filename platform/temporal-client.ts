import { Client, Connection } from '@temporalio/client';

/** One Temporal client for a process (API, scripts); the caller closes `connection`. */
export async function connectTemporalClient(
  address: string,
  namespace: string,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace }), connection };
}
