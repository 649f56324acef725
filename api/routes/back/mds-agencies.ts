// Agency credentials of the MDS provider interface (docs/mds.md): an operator creates one per regulator
// (the secret is answered once, stored as a scrypt hash), lists them and revokes them. They read every
// published system of the tenant, so each call needs its permission on the root branch of every published
// system (grants on ancestors count; on some branch while none is published): MDS_AGENCY_READ to read,
// MDS_AGENCY_MANAGE to create and revoke.
import { randomBytes, randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { MdsAgency } from '../../../db/entities/MdsAgency.js';
import { DomainError } from '../../../domain/errors.js';
import { hashSecret } from '../../../platform/secrets.js';
import { FeedSystem } from '../../../db/entities/FeedSystem.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';

const tags = ['MDS agencies'];
const readAccess = {
  anyCaller:
    'the handler requires MDS_AGENCY_READ on the root branch of every published system (on some branch while none is published)',
};
const manageAccess = {
  anyCaller:
    'the handler requires MDS_AGENCY_MANAGE on the root branch of every published system (on some branch while none is published)',
};

/**
 * An agency reads every published system: its credentials take the permission on each one's root branch
 * (AUTH002), or on some branch of the tenant while none is published.
 */
async function authorizeAgencies(ctx: RouteContext, permission: string): Promise<void> {
  const systems = await ctx.em.find(FeedSystem, { published: true }, { fields: ['rootBranch'] });
  if (!systems.length) {
    if (!(await ctx.holds({ permission })))
      throw new DomainError('AUTH002', `missing permission ${permission}`);
    return;
  }
  for (const system of systems) await ctx.authorize(permission, { branchId: system.rootBranch.id });
}

const MdsAgencyDto = component(
  'MdsAgency',
  Type.Object(
    {
      id: Id(),
      clientId: Type.String(),
      name: Type.String(),
      active: Type.Boolean(),
      createdBy: Type.String(),
      createdAt: DateTime(),
      revokedAt: Nullable(DateTime()),
      revokedBy: Nullable(Type.String()),
      lastTokenAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const CreatedMdsAgency = component(
  'CreatedMdsAgency',
  Type.Object(
    {
      ...MdsAgencyDto.properties,
      clientSecret: Type.String({
        description: 'Shown only in this answer: store it, it cannot be read again.',
      }),
    },
    { additionalProperties: false },
  ),
);

const AgencyParams = Type.Object({ agencyId: Id() });

function agencyDto(agency: MdsAgency): Static<typeof MdsAgencyDto> {
  return {
    id: agency.id,
    clientId: agency.clientId,
    name: agency.name,
    active: agency.active,
    createdBy: agency.createdBy,
    createdAt: agency.createdAt.toISOString(),
    revokedAt: agency.revokedAt?.toISOString() ?? null,
    revokedBy: agency.revokedBy ?? null,
    lastTokenAt: agency.lastTokenAt?.toISOString() ?? null,
  };
}

async function agencyOfPath(ctx: RouteContext<Static<typeof AgencyParams>>): Promise<MdsAgency> {
  const agency = await ctx.em.findOne(MdsAgency, { id: ctx.params.agencyId });
  if (!agency) throw new DomainError('MDS410');
  return agency;
}

export const createMdsAgency = defineRoute({
  operationId: 'createMdsAgency',
  method: 'post',
  path: '/mds-agencies',
  interface: 'back',
  summary: 'Create an agency credential for the MDS provider interface',
  description:
    "Client credentials for a regulator: its tokens (`POST /v1/{tenant}/mds/token`, scope `mds`) read the tenant's published systems through the MDS endpoints and nothing else. The secret is in this answer only.",
  tags,
  body: component(
    'MdsAgencyCreate',
    Type.Object(
      { name: Str(200, { minLength: 1, description: 'Who the agency is.' }) },
      { additionalProperties: false },
    ),
  ),
  access: manageAccess,
  responses: { 201: { description: 'Created', schema: CreatedMdsAgency } },
  errors: [],
  async handler(ctx) {
    await authorizeAgencies(ctx, 'MDS_AGENCY_MANAGE');
    const clientSecret = randomBytes(32).toString('base64url');
    const agency = ctx.em.create(MdsAgency, {
      clientId: `mds-${randomUUID()}`,
      name: ctx.body.name.trim() || ctx.body.name,
      secretHash: await hashSecret(clientSecret),
      createdBy: ctx.actor,
    });
    await ctx.em.flush();
    return created(
      { ...agencyDto(agency), clientSecret },
      { Location: `${ctx.baseUrl}/mds-agencies/${agency.id}` },
    );
  },
});

export const listMdsAgencies = defineRoute({
  operationId: 'listMdsAgencies',
  method: 'get',
  path: '/mds-agencies',
  interface: 'back',
  summary: 'List the agency credentials of the MDS provider interface',
  tags,
  paged: { defaultSize: 50, maxSize: 200 },
  access: readAccess,
  responses: { 200: { description: 'Agency credentials, newest first', schema: Type.Array(MdsAgencyDto) } },
  errors: [],
  async handler(ctx) {
    await authorizeAgencies(ctx, 'MDS_AGENCY_READ');
    const [agencies, total] = await ctx.em.findAndCount(
      MdsAgency,
      {},
      { orderBy: { id: 'desc' }, offset: ctx.page.offset, limit: ctx.page.size },
    );
    return ok(agencies.map(agencyDto), { total });
  },
});

export const getMdsAgency = defineRoute({
  operationId: 'getMdsAgency',
  method: 'get',
  path: '/mds-agencies/{agencyId}',
  interface: 'back',
  summary: 'One agency credential',
  tags,
  params: AgencyParams,
  access: readAccess,
  responses: { 200: { description: 'The agency credential', schema: MdsAgencyDto } },
  errors: ['MDS410'],
  async handler(ctx) {
    await authorizeAgencies(ctx, 'MDS_AGENCY_READ');
    return ok(agencyDto(await agencyOfPath(ctx)));
  },
});

export const revokeMdsAgency = defineRoute({
  operationId: 'revokeMdsAgency',
  method: 'post',
  path: '/mds-agencies/{agencyId}/revoke',
  interface: 'back',
  summary: 'Revoke an agency credential',
  description:
    'It gets no new token, and its tokens already issued are refused from the next request (MDS411).',
  tags,
  params: AgencyParams,
  access: manageAccess,
  responses: { 200: { description: 'The revoked credential', schema: MdsAgencyDto } },
  errors: ['MDS410', 'MDS412'],
  async handler(ctx) {
    await authorizeAgencies(ctx, 'MDS_AGENCY_MANAGE');
    const agency = await agencyOfPath(ctx);
    if (!agency.active) throw new DomainError('MDS412');
    agency.active = false;
    agency.revokedAt = new Date();
    agency.revokedBy = ctx.actor;
    return ok(agencyDto(agency));
  },
});

export const mdsAgencyRoutes = [createMdsAgency, listMdsAgencies, getMdsAgency, revokeMdsAgency];
