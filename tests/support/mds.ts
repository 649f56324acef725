// MDS API test helpers: an agency's token, MDS calls with the version's Accept header, following the
// JSON:API `next` links of a paged answer, and the schema check of every answer (tests/support/mds-schemas.ts)
// with each record under the mode of its vehicle.
import { demoMdsAgency } from '../../db/seed/mds.js';
import type { MdsMode } from '../../domain/mds.js';
import type { HttpStack, Reply } from './http.js';
import { mdsSchemaErrors, type MdsOperation } from './mds-schemas.js';

export const MDS_ACCEPT = 'application/vnd.mds+json;version=2.0';

/** An agency token of the tenant (the seeded demo agency unless other credentials are given). */
export async function agencyToken(
  stack: HttpStack,
  tenant: string,
  credentials: { clientId: string; clientSecret: string } = demoMdsAgency,
): Promise<string> {
  const reply = await stack.call('POST', `/v1/${tenant}/mds/token`, {
    body: {
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: 'mds',
    },
  });
  if (reply.status !== 200) throw new Error(`agency token: ${JSON.stringify(reply.body)}`);
  return reply.body.access_token as string;
}

/** A GET of an MDS path (below /v1/{tenant}/mds) with an agency token and the MDS 2.0 Accept header. */
export function mdsGet(
  stack: HttpStack,
  tenant: string,
  token: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return stack.call('GET', `/v1/${tenant}/mds${path}`, {
    token,
    headers: { accept: MDS_ACCEPT, ...headers },
  });
}

/** The path and query of an absolute link (links name PUBLIC_BASE_URL, not the test server). */
export const pathOfLink = (link: string): string => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

/** Every page of a paged MDS answer, following `links.next` from the given first page. */
export async function allPages(stack: HttpStack, token: string, firstPath: string): Promise<Reply[]> {
  const pages: Reply[] = [];
  let path: string | null = firstPath;
  while (path !== null) {
    const reply = await stack.call('GET', path, { token, headers: { accept: MDS_ACCEPT } });
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    pages.push(reply);
    const next: string | null = reply.body.links?.next ?? null;
    path = next === null ? null : pathOfLink(next);
    if (pages.length > 1000) throw new Error('more than 1000 pages');
  }
  return pages;
}

/** The devices of the tenant's /vehicles answer and their modes (records are validated under them). */
export function modesOf(vehicles: Array<{ device_id: string; vehicle_type: string }>): Map<string, MdsMode> {
  return new Map(
    vehicles.map((vehicle) => [
      vehicle.device_id,
      vehicle.vehicle_type === 'car' ? 'car-share' : 'micromobility',
    ]),
  );
}

/** Whether a Content-Type is the MDS 2.0 media type (parameters in any order and spacing). */
export function isMdsContentType(value: string | null): boolean {
  const [type, ...params] = (value ?? '').split(';').map((part) => part.trim().toLowerCase());
  return type === 'application/vnd.mds+json' && params.includes('version=2.0');
}

/** Fails with the schema's errors unless the answer is a valid MDS 2.0 body of its operation. */
export function expectValidMds(operation: MdsOperation, reply: Reply, modes: Map<string, MdsMode>): void {
  if (reply.status !== 200) throw new Error(`${operation}: ${reply.status} ${JSON.stringify(reply.body)}`);
  if (!isMdsContentType(reply.headers.get('content-type')))
    throw new Error(`${operation}: content type ${reply.headers.get('content-type')}`);
  const errors = mdsSchemaErrors(operation, reply.body, (device) => {
    const mode = modes.get(device);
    if (!mode) throw new Error(`${operation}: device ${device} is not among the tenant's vehicles`);
    return mode;
  });
  if (errors.length) throw new Error(`${operation}: ${JSON.stringify(errors.slice(0, 5), null, 1)}`);
}
