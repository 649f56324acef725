// Branch administration: the branch tree, its states and settings, and compatible branches.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { CompatibleBranch } from '../../../db/entities/CompatibleBranch.js';
import { TENANT_FILTER } from '../../../db/entities/TenantScoped.js';
import { branchOperationModes, branchStates, branchVisibilities } from '../../../db/entities/Branch.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchTree, branchWithDescendants, grantedSubtrees } from '../../../db/branches.js';
import { readCacheOf } from '../../../db/read-cache.js';
import { DomainError } from '../../../domain/errors.js';
import { isTransactionConflict } from '../../errors.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { BranchState, ContactInfo, likePattern } from '../../shared/branch-representation.js';

const tags = ['Branches'];

/** A currency code (ISO 4217). */
export const CurrencyCode = Str(3, { pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' });
/** A percentage as a decimal string (never binary floating point), 0 to 100 with up to two decimals. */
export const PercentageString = Str(6, {
  pattern: '^(100(\\.0{1,2})?|[0-9]{1,2}(\\.[0-9]{1,2})?)$',
  description: 'Percentage as a decimal string, e.g. `19.00`.',
});
/** Refuses a time zone the runtime does not know (B105): schedules and local times depend on it. */
export function assertTimeZone(timeZoneId: string | undefined): void {
  if (timeZoneId === undefined) return;
  try {
    new Intl.DateTimeFormat('en', { timeZone: timeZoneId });
  } catch {
    throw new DomainError('B105', `unknown time zone ${timeZoneId}`);
  }
}

/** An IANA time zone name. */
export const TimeZoneId = Str(64, { pattern: '^[A-Za-z_]+(/[A-Za-z0-9_+-]+){0,2}$|^UTC$' });

/** Legacy display geometry: any GeoJSON object (read-only). */
const LegacyGeometry = Nullable(
  Type.Object(
    {},
    { additionalProperties: true, description: 'GeoJSON, read-only (areas are the write model).' },
  ),
);

const BranchSummary = component(
  'BranchSummary',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      code: Type.String(),
      state: BranchState,
      parentId: Nullable(Id()),
    },
    { additionalProperties: false },
  ),
);

const BranchSchema = component(
  'Branch',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      code: Type.String(),
      state: BranchState,
      type: Nullable(Type.String()),
      operationMode: StringEnum(branchOperationModes),
      visibility: StringEnum(branchVisibilities),
      timeZoneId: Type.String(),
      parentId: Nullable(Id()),
      isBillable: Type.Boolean(),
      billableBranchId: Id({ description: 'The business unit (billable branch) behind this branch.' }),
      termsAndConditionsId: Nullable(Type.Integer()),
      currency: Type.String({ description: "Effective currency: the branch's override or its unit's." }),
      taxPercentage: Type.String({
        description: "Effective tax percentage: the branch's override or its unit's.",
      }),
      contactInfo: Nullable(ContactInfo),
      businessArea: LegacyGeometry,
      mapOverlayProhibited: LegacyGeometry,
      mapOverlayWarning: LegacyGeometry,
      children: Type.Optional(
        Type.Array(BranchSummary, {
          description: 'With includeChildren: every descendant, depth first, each with its parentId.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const BranchWrite = component(
  'BranchWrite',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      code: Str(64, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
      parentId: Id({ description: 'Parent branch (root branches are created by the platform operator).' }),
      state: Type.Optional(BranchState),
      type: Type.Optional(Nullable(Str(64))),
      operationMode: Type.Optional(StringEnum(branchOperationModes)),
      visibility: Type.Optional(StringEnum(branchVisibilities)),
      timeZoneId: Type.Optional(TimeZoneId),
      isBillable: Type.Optional(Type.Boolean()),
      billableBranchId: Type.Optional(Id({ description: "Business unit; defaults to the parent's." })),
      termsAndConditionsId: Type.Optional(Nullable(Id())),
      currency: Type.Optional(Nullable(CurrencyCode)),
      taxPercentage: Type.Optional(Nullable(PercentageString)),
      contactInfo: Type.Optional(Nullable(ContactInfo)),
    },
    { additionalProperties: false },
  ),
);

const BranchUpdate = component(
  'BranchUpdate',
  Type.Object(
    {
      ...BranchWrite.properties,
      parentId: Nullable(Id({ description: 'New parent; null only for a branch that already is a root.' })),
      state: BranchState,
      operationMode: StringEnum(branchOperationModes),
      visibility: StringEnum(branchVisibilities),
      timeZoneId: TimeZoneId,
      isBillable: Type.Boolean(),
      billableBranchId: Id(),
    },
    { additionalProperties: false, description: 'Replaces every writable field.' },
  ),
);

const CompatibleBranchSchema = component(
  'CompatibleBranch',
  Type.Object(
    {
      branchId: Id({ description: 'The related branch.' }),
      isIncoming: Type.Boolean({ description: 'Trips from the related branch may end here.' }),
      isOutgoing: Type.Boolean({ description: 'Trips from this branch may end in the related branch.' }),
    },
    { additionalProperties: false },
  ),
);

const BranchIdParams = Type.Object({ branchId: Id() });
const SearchText = Str(100, { minLength: 1, description: 'Case-insensitive part of the name or code.' });

/** The API's branch representation. */
export function toBranchDto(branch: Branch, children?: Branch[]): Static<typeof BranchSchema> {
  const unit = branch.businessUnit;
  return {
    id: branch.id,
    name: branch.name,
    code: branch.code,
    state: branch.state,
    type: branch.type ?? null,
    operationMode: branch.operationMode,
    visibility: branch.visibility,
    timeZoneId: branch.timeZoneId,
    parentId: branch.parent?.id ?? null,
    isBillable: branch.isBillable,
    billableBranchId: unit.id,
    termsAndConditionsId: branch.termsAndConditionsId ?? unit.termsAndConditionsId ?? null,
    currency: branch.currency ?? unit.currency,
    taxPercentage: branch.taxPercentage ?? unit.taxPercentage,
    contactInfo: (branch.contactInfo as Static<typeof ContactInfo> | null | undefined) ?? null,
    businessArea: branch.businessArea ?? null,
    mapOverlayProhibited: branch.mapOverlayProhibited ?? null,
    mapOverlayWarning: branch.mapOverlayWarning ?? null,
    ...(children ? { children: children.map(toBranchSummary) } : {}),
  };
}

function toBranchSummary(branch: Branch): Static<typeof BranchSummary> {
  return {
    id: branch.id,
    name: branch.name,
    code: branch.code,
    state: branch.state,
    parentId: branch.parent?.id ?? null,
  };
}

/** Runs `work` in one transaction of the request, confined to its tenant: all of it commits or nothing. */
export function inRequestTransaction<T>(
  ctx: RouteContext,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  // A deadlock aborts one of the transactions it joins, with nothing written: run it again, twice at most
  // (then the client is told to retry: 0031).
  const attempt = (left: number): Promise<T> =>
    ctx.em
      .transactional(async (tx) => {
        tx.setFilterParams(TENANT_FILTER, { tenantId: ctx.tenant });
        return work(tx);
      })
      .catch((error: unknown) => {
        if (left > 0 && isTransactionConflict(error)) return attempt(left - 1);
        throw error;
      });
  return attempt(2);
}

/** Loads a branch of the tenant with its business unit, or B404. */
export async function loadBranch(em: EntityManager, branchId: number): Promise<Branch> {
  const branch = await em.findOne(Branch, branchId, { populate: ['businessUnit'] });
  if (!branch) throw new DomainError('B404', `branch ${branchId} not found`);
  return branch;
}

/** The branches on which the caller holds a permission (grants on ancestors count). */
export async function visibleBranchIds(ctx: RouteContext, permission: string): Promise<Set<number>> {
  return grantedSubtrees(await branchTree(ctx.em, ctx.tenant), (branchId) =>
    ctx.holds({ permission, branchId }),
  );
}

/** Name or code containing the text, case-insensitively. */
export const searchCondition = (text: string | undefined) =>
  text ? { $or: [{ name: { $ilike: likePattern(text) } }, { code: { $ilike: likePattern(text) } }] } : {};

/** Descendants of a branch, depth first (without the branch). */
async function descendantsOf(ctx: RouteContext, branch: Branch): Promise<Branch[]> {
  const ids = (await branchWithDescendants(ctx.em, ctx.tenant, branch.id)).filter((id) => id !== branch.id);
  const rows = await ctx.em.find(Branch, { id: { $in: ids } });
  const byParent = new Map<number, Branch[]>();
  for (const row of rows) {
    const parentId = row.parent?.id ?? 0;
    byParent.set(parentId, [...(byParent.get(parentId) ?? []), row]);
  }
  const ordered: Branch[] = [];
  const walk = (id: number) => {
    for (const child of (byParent.get(id) ?? []).sort((a, b) => a.id - b.id)) {
      ordered.push(child);
      walk(child.id);
    }
  };
  walk(branch.id);
  return ordered;
}

/** Refuses a code another branch of the tenant has. */
async function assertCodeFree(em: EntityManager, code: string, exceptId?: number): Promise<void> {
  const other = await em.findOne(Branch, { code });
  if (other && other.id !== exceptId) throw new DomainError('B100', `branch code ${code} exists`);
}

/** The business unit a write names, or the parent's; B405 when unknown. */
async function businessUnitFor(
  ctx: RouteContext,
  requested: number | undefined,
  fallback: BusinessUnit,
): Promise<BusinessUnit> {
  if (requested === undefined || requested === fallback.id) return fallback;
  const unit = await ctx.em.findOne(BusinessUnit, requested);
  if (!unit) throw new DomainError('B405', `business unit ${requested} not found`);
  // Putting a branch under another business unit is a finance decision of that unit.
  await ctx.authorize('BUSINESS_UNIT_MANAGE', { businessUnitId: unit.id });
  return unit;
}

export const listBranches = defineRoute({
  operationId: 'listBranches',
  method: 'get',
  path: '/branches',
  interface: 'back',
  summary: 'Branches the caller may read',
  tags,
  query: Type.Object({
    searchText: Type.Optional(SearchText),
    parentId: Type.Optional(Id({ description: 'Only the children of this branch.' })),
    rootBranchId: Type.Optional(Id({ description: 'Only this branch and its descendants.' })),
    state: Type.Optional(Type.Array(BranchState, { maxItems: branchStates.length })),
    sort: Type.Optional(
      Str(20, { pattern: '^(id|name|code|state)(,(asc|desc|ASC|DESC))?$', default: 'name' }),
    ),
  }),
  paged: { defaultSize: 50 },
  access: { anyCaller: 'lists only the branches on which the caller holds BRANCH_READ.' },
  responses: { 200: { description: 'One page of branches', schema: Type.Array(BranchSchema) } },
  errors: [],
  async handler(ctx) {
    const { em, query, page } = ctx;
    let ids = [...(await visibleBranchIds(ctx, 'BRANCH_READ'))];
    if (query.rootBranchId !== undefined) {
      const subtree = new Set(await branchWithDescendants(em, ctx.tenant, query.rootBranchId));
      ids = ids.filter((id) => subtree.has(id));
    }
    const where: Record<string, unknown> = { id: { $in: ids }, ...searchCondition(query.searchText) };
    if (query.parentId !== undefined) where.parent = query.parentId;
    if (query.state) where.state = { $in: query.state };
    const [rows, total] = await em.findAndCount(Branch, where, {
      populate: ['businessUnit'],
      orderBy: orderBy(query.sort, 'name'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(
      rows.map((row) => toBranchDto(row)),
      { total },
    );
  },
});

export const listBranchesLight = defineRoute({
  operationId: 'listBranchesLight',
  method: 'get',
  path: '/branches-list',
  interface: 'back',
  summary: 'A light list of the branches the caller may read (for pickers)',
  tags,
  query: Type.Object({
    searchText: Type.Optional(SearchText),
    rootBranchId: Type.Optional(Id({ description: 'Only this branch and its descendants.' })),
  }),
  access: { anyCaller: 'lists only the branches on which the caller holds BRANCH_READ.' },
  responses: {
    200: { description: 'Branches, by name', schema: Type.Array(BranchSummary, { maxItems: 10000 }) },
  },
  errors: [],
  async handler(ctx) {
    let ids = [...(await visibleBranchIds(ctx, 'BRANCH_READ'))];
    if (ctx.query.rootBranchId !== undefined) {
      const subtree = new Set(await branchWithDescendants(ctx.em, ctx.tenant, ctx.query.rootBranchId));
      ids = ids.filter((id) => subtree.has(id));
    }
    const rows = await ctx.em.find(
      Branch,
      { id: { $in: ids }, ...searchCondition(ctx.query.searchText) },
      { orderBy: { name: 'asc', id: 'asc' }, limit: 10000 },
    );
    return ok(rows.map(toBranchSummary));
  },
});

export const getBranch = defineRoute({
  operationId: 'getBranch',
  method: 'get',
  path: '/branches/{branchId}',
  interface: 'back',
  summary: 'One branch, optionally with its descendants',
  tags,
  params: BranchIdParams,
  query: Type.Object({ includeChildren: Type.Optional(Type.Boolean({ default: false })) }),
  access: { permission: 'BRANCH_READ', branchOf: 'the path', branch: (ctx) => ctx.params.branchId },
  responses: { 200: { description: 'The branch', schema: BranchSchema } },
  errors: [],
  async handler(ctx) {
    const branch = await loadBranch(ctx.em, ctx.params.branchId);
    const children = ctx.query.includeChildren ? await descendantsOf(ctx, branch) : undefined;
    return ok(toBranchDto(branch, children));
  },
});

export const createBranch = defineRoute({
  operationId: 'createBranch',
  method: 'post',
  path: '/branches',
  interface: 'back',
  summary: 'Create a branch below a parent',
  description:
    "The new branch inherits the parent's business unit and time zone unless given; naming another business unit needs BUSINESS_UNIT_MANAGE on it.",
  tags,
  body: BranchWrite,
  access: { permission: 'BRANCH_MANAGE', branchOf: 'body.parentId', branch: (ctx) => ctx.body.parentId },
  responses: {
    201: {
      description: 'Branch created',
      schema: BranchSchema,
      headers: { Location: { description: 'URL of the new branch.', schema: Str(200) } },
    },
  },
  errors: ['B100', 'B105', 'B405'],
  async handler(ctx) {
    const { em, body } = ctx;
    assertTimeZone(body.timeZoneId);
    const parent = await loadBranch(em, body.parentId);
    await assertCodeFree(em, body.code);
    const unit = await businessUnitFor(ctx, body.billableBranchId, parent.businessUnit);
    const branch = em.create(Branch, {
      name: body.name,
      code: body.code,
      parent,
      businessUnit: unit,
      state: body.state ?? 'IN_PREPARATION',
      type: body.type ?? null,
      operationMode: body.operationMode ?? parent.operationMode,
      visibility: body.visibility ?? 'public',
      timeZoneId: body.timeZoneId ?? parent.timeZoneId,
      isBillable: body.isBillable ?? false,
      termsAndConditionsId: body.termsAndConditionsId ?? null,
      currency: body.currency ?? null,
      taxPercentage: body.taxPercentage ?? null,
      contactInfo: body.contactInfo ?? null,
    });
    await em.flush();
    return created(toBranchDto(branch), { Location: `${ctx.baseUrl}/branches/${branch.id}` });
  },
});

export const updateBranch = defineRoute({
  operationId: 'updateBranch',
  method: 'put',
  path: '/branches/{branchId}',
  interface: 'back',
  summary: 'Replace a branch',
  description:
    'Moving the branch needs BRANCH_MANAGE on the new parent too (never below itself); another business unit needs BUSINESS_UNIT_MANAGE on it.',
  tags,
  params: BranchIdParams,
  body: BranchUpdate,
  access: { permission: 'BRANCH_MANAGE', branchOf: 'the path', branch: (ctx) => ctx.params.branchId },
  responses: { 200: { description: 'The branch', schema: BranchSchema } },
  errors: ['B100', 'B101', 'B105', 'B405'],
  async handler(ctx) {
    const { em, body, tenant } = ctx;
    assertTimeZone(body.timeZoneId);
    const branch = await loadBranch(em, ctx.params.branchId);
    await assertCodeFree(em, body.code, branch.id);
    const currentParentId = branch.parent?.id ?? null;
    if (body.parentId !== currentParentId) {
      if (body.parentId === null)
        throw new DomainError('B101', 'only the platform operator makes a branch a root');
      const below = await branchWithDescendants(em, tenant, branch.id);
      if (below.includes(body.parentId))
        throw new DomainError('B101', `branch ${body.parentId} is this branch or one of its descendants`);
      if (!(await em.count(Branch, body.parentId)))
        throw new DomainError('B101', `parent branch ${body.parentId} not found`);
      await ctx.authorize('BRANCH_MANAGE', { branchId: body.parentId });
      branch.parent = em.getReference(Branch, body.parentId);
    }
    branch.businessUnit = await businessUnitFor(ctx, body.billableBranchId, branch.businessUnit);
    Object.assign(branch, {
      name: body.name,
      code: body.code,
      state: body.state,
      type: body.type ?? null,
      operationMode: body.operationMode,
      visibility: body.visibility,
      timeZoneId: body.timeZoneId,
      isBillable: body.isBillable,
      termsAndConditionsId: body.termsAndConditionsId ?? null,
      currency: body.currency ?? null,
      taxPercentage: body.taxPercentage ?? null,
      contactInfo: body.contactInfo ?? null,
    });
    await em.flush();
    return ok(toBranchDto(await loadBranch(em, branch.id)));
  },
});

async function compatibleBranchesOf(em: EntityManager, branchId: number) {
  const rows = await em.find(CompatibleBranch, { branch: branchId }, { orderBy: { compatible: 'asc' } });
  return rows.map((row) => ({
    branchId: row.compatible.id,
    isIncoming: row.isIncoming,
    isOutgoing: row.isOutgoing,
  }));
}

export const getCompatibleBranches = defineRoute({
  operationId: 'getCompatibleBranches',
  method: 'get',
  path: '/branches/{branchId}/compatible-branches',
  interface: 'back',
  summary: 'Branches this branch exchanges trips with',
  tags,
  params: BranchIdParams,
  access: { permission: 'BRANCH_READ', branchOf: 'the path', branch: (ctx) => ctx.params.branchId },
  responses: { 200: { description: 'Compatible branches', schema: Type.Array(CompatibleBranchSchema) } },
  errors: [],
  async handler(ctx) {
    return ok(await compatibleBranchesOf(ctx.em, ctx.params.branchId));
  },
});

export const replaceCompatibleBranches = defineRoute({
  operationId: 'replaceCompatibleBranches',
  method: 'put',
  path: '/branches/{branchId}/compatible-branches',
  interface: 'back',
  summary: 'Replace the compatible branches of a branch',
  description: 'isIncoming and isOutgoing are independent; a branch listed with both false is removed.',
  tags,
  params: BranchIdParams,
  body: Type.Array(CompatibleBranchSchema, { maxItems: 500 }),
  access: { permission: 'BRANCH_MANAGE', branchOf: 'the path', branch: (ctx) => ctx.params.branchId },
  responses: { 200: { description: 'Compatible branches', schema: Type.Array(CompatibleBranchSchema) } },
  errors: ['B104'],
  async handler(ctx) {
    const { em, params, body } = ctx;
    const wanted = new Map(body.map((entry) => [entry.branchId, entry]));
    if (wanted.has(params.branchId)) throw new DomainError('B104');
    const found = await em.count(Branch, { id: { $in: [...wanted.keys()] } });
    if (found !== wanted.size) throw new DomainError('B404', 'a compatible branch does not exist');
    await inRequestTransaction(ctx, async (tx) => {
      await tx.nativeDelete(CompatibleBranch, { branch: params.branchId });
      for (const entry of wanted.values())
        if (entry.isIncoming || entry.isOutgoing)
          tx.create(CompatibleBranch, {
            branch: tx.getReference(Branch, params.branchId),
            compatible: tx.getReference(Branch, entry.branchId),
            isIncoming: entry.isIncoming,
            isOutgoing: entry.isOutgoing,
          });
    });
    // The delete above bypasses the unit of work the read cache watches (rental ends read these links).
    readCacheOf(em).invalidate();
    return ok(await compatibleBranchesOf(em, params.branchId));
  },
});

export const branchRoutes = [
  listBranches,
  listBranchesLight,
  getBranch,
  createBranch,
  updateBranch,
  getCompatibleBranches,
  replaceCompatibleBranches,
];
