// Published systems of the open mobility feeds (docs/feeds.md): a branch subtree the operator exposes as
// one GBFS system. Reading needs FEED_READ, changing FEED_MANAGE, on the system's root branch (grants on
// ancestors count). Publishing makes the public feeds answer; unpublishing makes them not found again.
import { Type, type Static } from '@sinclair/typebox';
import { FeedSystem } from '../../../db/entities/FeedSystem.js';
import { Branch } from '../../../db/entities/Branch.js';
import { DomainError } from '../../../domain/errors.js';
import { assertFeedTimeZone, canonicalLanguage, FEED_SYSTEM_ID_PATTERN } from '../../../domain/feeds.js';
import { invalidateFeeds } from '../../feeds/gbfs-snapshots.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';

const tags = ['Feeds'];

const Url = Str(500, {
  format: 'uri',
  pattern: '^https?://[^\\s\\u0000]+$',
  description: 'Absolute http(s) URL.',
});
const Email = Type.String({ maxLength: 254, pattern: '^[^\\s@\\u0000]+@[^\\s@\\u0000]+\\.[^\\s@\\u0000]+$' });
const SystemId = Str(63, {
  pattern: FEED_SYSTEM_ID_PATTERN,
  description:
    'URL-safe slug (lowercase letters, digits, dashes), unique in the tenant; the public paths name it.',
});
const App = Type.Object(
  {
    storeUri: Url,
    discoveryUri: Str(500, { minLength: 3, pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*:[^\\s\\u0000]+$' }),
  },
  { additionalProperties: false },
);

export const FeedSystemSchema = component(
  'FeedSystem',
  Type.Object(
    {
      id: Id(),
      systemId: Type.String(),
      name: Type.String(),
      shortName: Nullable(Type.String()),
      rootBranchId: Id(),
      published: Type.Boolean(),
      publishedAt: Nullable(DateTime()),
      language: Type.String(),
      timezone: Type.String(),
      openingHours: Type.String(),
      operatorName: Nullable(Type.String()),
      url: Nullable(Type.String()),
      purchaseUrl: Nullable(Type.String()),
      phoneNumber: Nullable(Type.String()),
      email: Nullable(Type.String()),
      feedContactEmail: Type.String(),
      startDate: Nullable(Type.String()),
      licenseUrl: Nullable(Type.String()),
      attributionOrganizationName: Nullable(Type.String()),
      attributionUrl: Nullable(Type.String()),
      privacyUrl: Nullable(Type.String()),
      termsUrl: Nullable(Type.String()),
      rentalApps: Nullable(
        Type.Object({ android: Type.Optional(Nullable(App)), ios: Type.Optional(Nullable(App)) }),
      ),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

type FeedSystemDto = Static<typeof FeedSystemSchema>;

/** The operator's representation of a feed system. */
export function toFeedSystemDto(system: FeedSystem): FeedSystemDto {
  return {
    id: system.id,
    systemId: system.systemId,
    name: system.name,
    shortName: system.shortName ?? null,
    rootBranchId: system.rootBranch.id,
    published: system.published,
    publishedAt: system.publishedAt?.toISOString() ?? null,
    language: system.language,
    timezone: system.timezone,
    openingHours: system.openingHours,
    operatorName: system.operatorName ?? null,
    url: system.url ?? null,
    purchaseUrl: system.purchaseUrl ?? null,
    phoneNumber: system.phoneNumber ?? null,
    email: system.email ?? null,
    feedContactEmail: system.feedContactEmail,
    startDate: system.startDate ?? null,
    licenseUrl: system.licenseUrl ?? null,
    attributionOrganizationName: system.attributionOrganizationName ?? null,
    attributionUrl: system.attributionUrl ?? null,
    privacyUrl: system.privacyUrl ?? null,
    termsUrl: system.termsUrl ?? null,
    rentalApps: system.rentalApps ?? null,
    createdBy: system.createdBy,
    createdAt: system.createdAt.toISOString(),
    updatedAt: system.updatedAt.toISOString(),
  };
}

const FeedSystemWrite = Type.Object(
  {
    systemId: SystemId,
    name: Str(200, { minLength: 1 }),
    shortName: Type.Optional(Nullable(Str(100, { minLength: 1 }))),
    rootBranchId: Id({ description: 'The branch whose subtree the system covers.' }),
    language: Str(6, {
      pattern: '^[a-z]{2,3}(-[A-Z]{2})?$',
      description: 'BCP-47 language, optionally with its region (`de`, `en-GB`), as GBFS writes it.',
    }),
    timezone: Type.Optional(
      Str(64, {
        pattern: '^[A-Za-z_]+(/[A-Za-z0-9_+-]+){0,2}$|^UTC$',
        description: "IANA time zone; default: the root branch's.",
      }),
    ),
    openingHours: Type.Optional(
      Str(500, { minLength: 1, description: 'OpenStreetMap opening_hours; default 24/7.' }),
    ),
    operatorName: Type.Optional(Nullable(Str(200, { minLength: 1 }))),
    url: Type.Optional(Nullable(Url)),
    purchaseUrl: Type.Optional(Nullable(Url)),
    phoneNumber: Type.Optional(Nullable(Str(40, { pattern: '^\\+?[0-9]{3,20}$' }))),
    email: Type.Optional(Nullable(Email)),
    feedContactEmail: Email,
    startDate: Type.Optional(Nullable(Type.String({ format: 'date', maxLength: 10 }))),
    licenseUrl: Type.Optional(Nullable(Url)),
    attributionOrganizationName: Type.Optional(Nullable(Str(200, { minLength: 1 }))),
    attributionUrl: Type.Optional(Nullable(Url)),
    privacyUrl: Type.Optional(Nullable(Url)),
    termsUrl: Type.Optional(Nullable(Url)),
    rentalApps: Type.Optional(
      Nullable(
        Type.Object(
          { android: Type.Optional(Nullable(App)), ios: Type.Optional(Nullable(App)) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

const FeedSystemCreate = component('FeedSystemCreate', FeedSystemWrite);
const FeedSystemUpdate = component(
  'FeedSystemUpdate',
  Type.Partial(FeedSystemWrite, { additionalProperties: false, minProperties: 1 }),
);
const Params = Type.Object({ feedSystemId: Id() });

/** The feed system of the path, in the caller's tenant (FD404); loaded once per request. */
export function feedSystemOf(ctx: RouteContext<{ feedSystemId: number }>): Promise<FeedSystem> {
  return ctx.once('feedSystem', async () => {
    const system = await ctx.em.findOne(FeedSystem, ctx.params.feedSystemId);
    if (!system) throw new DomainError('FD404', `feed system ${ctx.params.feedSystemId} not found`);
    return system;
  });
}

async function assertSystemIdFree(ctx: RouteContext, systemId: string, except?: number): Promise<void> {
  const other = await ctx.em.findOne(FeedSystem, { systemId });
  if (other && other.id !== except) throw new DomainError('FD100', `system id ${systemId} is already used`);
}

type Write = Partial<Static<typeof FeedSystemWrite>>;

/** Copies the optional fields of a create or update body onto the row (validated first). */
function applyFields(system: FeedSystem, body: Write): void {
  if (body.name !== undefined) system.name = body.name;
  if (body.language !== undefined) system.language = canonicalLanguage(body.language);
  if (body.timezone !== undefined) {
    assertFeedTimeZone(body.timezone);
    system.timezone = body.timezone;
  }
  if (body.openingHours !== undefined) system.openingHours = body.openingHours;
  if (body.feedContactEmail !== undefined) system.feedContactEmail = body.feedContactEmail;
  const nullable = [
    'shortName',
    'operatorName',
    'url',
    'purchaseUrl',
    'phoneNumber',
    'email',
    'startDate',
    'licenseUrl',
    'attributionOrganizationName',
    'attributionUrl',
    'privacyUrl',
    'termsUrl',
    'rentalApps',
  ] as const;
  for (const key of nullable)
    if (body[key] !== undefined) (system as unknown as Record<string, unknown>)[key] = body[key];
}

const readAccess = {
  permission: 'FEED_READ',
  branchOf: 'the root branch of the feed system',
  branch: async (ctx: RouteContext<{ feedSystemId: number }>) => (await feedSystemOf(ctx)).rootBranch.id,
};
const manageAccess = { ...readAccess, permission: 'FEED_MANAGE' };

export const listFeedSystems = defineRoute({
  operationId: 'listFeedSystems',
  method: 'get',
  path: '/feed-systems',
  interface: 'back',
  summary: 'The feed systems whose root branch the caller may read (FEED_READ), by system id',
  tags,
  query: Type.Object({ published: Type.Optional(Type.Boolean()) }),
  paged: { defaultSize: 50, maxSize: 100 },
  access: { anyCaller: 'the handler lists only systems whose root branch the caller holds FEED_READ on' },
  responses: { 200: { description: 'One page of feed systems', schema: Type.Array(FeedSystemSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    if (!(await ctx.holds({ permission: 'FEED_READ' })))
      throw new DomainError('AUTH002', 'missing permission FEED_READ');
    const rows = await ctx.em.find(
      FeedSystem,
      ctx.query.published === undefined ? {} : { published: ctx.query.published },
      { orderBy: { systemId: 'asc' } },
    );
    const visible: FeedSystem[] = [];
    for (const row of rows)
      if (await ctx.holds({ permission: 'FEED_READ', branchId: row.rootBranch.id })) visible.push(row);
    const page = visible.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    return ok(page.map(toFeedSystemDto), { total: visible.length });
  },
});

export const createFeedSystem = defineRoute({
  operationId: 'createFeedSystem',
  method: 'post',
  path: '/feed-systems',
  interface: 'back',
  summary: 'Create a feed system over a branch subtree (unpublished until published)',
  tags,
  body: FeedSystemCreate,
  access: {
    permission: 'FEED_MANAGE',
    branchOf: 'body.rootBranchId',
    branch: (ctx) => ctx.body.rootBranchId,
  },
  responses: { 201: { description: 'The feed system', schema: FeedSystemSchema } },
  errors: ['FD100', 'FD101', 'FD102'],
  async handler(ctx) {
    const { em, body } = ctx;
    await assertSystemIdFree(ctx, body.systemId);
    const branch = await em.findOneOrFail(Branch, body.rootBranchId);
    const system = em.create(FeedSystem, {
      systemId: body.systemId,
      name: body.name,
      rootBranch: branch,
      language: canonicalLanguage(body.language),
      timezone: body.timezone ?? branch.timeZoneId,
      feedContactEmail: body.feedContactEmail,
      createdBy: ctx.actor,
    });
    applyFields(system, body);
    await em.flush();
    return created(toFeedSystemDto(system), { Location: `${ctx.baseUrl}/feed-systems/${system.id}` });
  },
});

export const getFeedSystem = defineRoute({
  operationId: 'getFeedSystem',
  method: 'get',
  path: '/feed-systems/{feedSystemId}',
  interface: 'back',
  summary: 'One feed system',
  tags,
  params: Params,
  access: readAccess,
  responses: { 200: { description: 'The feed system', schema: FeedSystemSchema } },
  errors: ['FD404'],
  async handler(ctx) {
    return ok(toFeedSystemDto(await feedSystemOf(ctx)));
  },
});

export const updateFeedSystem = defineRoute({
  operationId: 'updateFeedSystem',
  method: 'patch',
  path: '/feed-systems/{feedSystemId}',
  interface: 'back',
  summary: 'Change some fields of a feed system',
  description: 'Moving it to another root branch needs FEED_MANAGE there too.',
  tags,
  params: Params,
  body: FeedSystemUpdate,
  access: manageAccess,
  responses: { 200: { description: 'The feed system', schema: FeedSystemSchema } },
  errors: ['FD404', 'FD100', 'FD101', 'FD102'],
  async handler(ctx) {
    const system = await feedSystemOf(ctx);
    const { body } = ctx;
    if (body.systemId !== undefined && body.systemId !== system.systemId) {
      await assertSystemIdFree(ctx, body.systemId, system.id);
      system.systemId = body.systemId;
    }
    if (body.rootBranchId !== undefined && body.rootBranchId !== system.rootBranch.id) {
      await ctx.authorize('FEED_MANAGE', { branchId: body.rootBranchId });
      system.rootBranch = ctx.em.getReference(Branch, body.rootBranchId);
    }
    applyFields(system, body);
    system.updatedAt = new Date();
    await ctx.em.flush();
    invalidateFeeds(ctx.tenant);
    return ok(toFeedSystemDto(system));
  },
});

export const deleteFeedSystem = defineRoute({
  operationId: 'deleteFeedSystem',
  method: 'delete',
  path: '/feed-systems/{feedSystemId}',
  interface: 'back',
  summary: 'Delete an unpublished feed system',
  tags,
  params: Params,
  access: manageAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['FD404', 'FD103'],
  async handler(ctx) {
    const system = await feedSystemOf(ctx);
    if (system.published) throw new DomainError('FD103', `feed system ${system.id} is published`);
    ctx.em.remove(system);
    await ctx.em.flush();
    return noContent();
  },
});

function publication(published: boolean) {
  return defineRoute({
    operationId: published ? 'publishFeedSystem' : 'unpublishFeedSystem',
    method: 'post',
    path: published ? '/feed-systems/{feedSystemId}/publish' : '/feed-systems/{feedSystemId}/unpublish',
    interface: 'back',
    summary: published
      ? 'Publish a feed system: its public feeds answer from now on'
      : 'Unpublish a feed system: its public feeds answer not found (FD410) from now on',
    tags,
    params: Params,
    access: manageAccess,
    responses: { 200: { description: 'The feed system', schema: FeedSystemSchema } },
    errors: ['FD404'],
    async handler(ctx) {
      const system = await feedSystemOf(ctx);
      if (system.published !== published) {
        system.published = published;
        system.publishedAt = published ? new Date() : null;
        system.updatedAt = new Date();
        await ctx.em.flush();
        invalidateFeeds(ctx.tenant);
      }
      return ok(toFeedSystemDto(system));
    },
  });
}

export const publishFeedSystem = publication(true);
export const unpublishFeedSystem = publication(false);

export const feedSystemRoutes = [
  listFeedSystems,
  createFeedSystem,
  getFeedSystem,
  updateFeedSystem,
  deleteFeedSystem,
  publishFeedSystem,
  unpublishFeedSystem,
];
