// Operator endpoints of issues (the spec shows no paths; designed like the damages and tasks): the list
// of a branch, create (the branch from the rental, booking or vehicle when not given, F201 without any),
// read, edit and move through the state table (F100), and the damages linked to an issue. Access: the
// operational ISSUE_READ / ISSUE_MANAGE on the issue's branch. See docs/issues.md.
import { LockMode } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { Damage } from '../../../db/entities/Damage.js';
import { Issue } from '../../../db/entities/Issue.js';
import {
  branchOfNewIssue,
  issueLinkNames,
  linkableDamage,
  resolveIssueLinks,
  type IssueLinks,
} from '../../../db/issues.js';
import { DomainError } from '../../../domain/errors.js';
import {
  issueCategories,
  issueEditable,
  issueStates,
  issueTransitionRefusal,
  isOpenIssue,
} from '../../../domain/issues.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str } from '../../kernel/schemas.js';
import {
  IssueAssigneeInput,
  IssueCategory,
  IssueIdParams,
  IssueSchema,
  IssueState,
  issueById,
  onTheIssue,
  tags,
  toIssueDto,
  toIssueDtos,
} from './issue-representation.js';
import { containing, listedBranches } from './task-representation.js';

/** A title: 1–200 characters, not blank, no NUL. */
const Title = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

export const listIssues = defineRoute({
  operationId: 'listIssues',
  method: 'get',
  path: '/issues',
  interface: 'back',
  summary: "A branch's issues, newest first",
  description:
    'Filters combine: `state` and `category` (repeatable), `vehicleId`, `rentalId`, `guserId`, `searchText` (in title and description, case ignored). Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    state: Type.Optional(Type.Array(IssueState, { maxItems: issueStates.length, uniqueItems: true })),
    category: Type.Optional(
      Type.Array(IssueCategory, { maxItems: issueCategories.length, uniqueItems: true }),
    ),
    vehicleId: Type.Optional(Id()),
    rentalId: Type.Optional(Id()),
    guserId: Type.Optional(Id()),
    searchText: Type.Optional(Str(200, { minLength: 1 })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'ISSUE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of issues', schema: Type.Array(IssueSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = await listedBranches(em, tenant, query.branchId, query.includeChildBranches);
    const where: Record<string, unknown> = { branchId: { $in: branches } };
    if (query.state) where.state = { $in: [...query.state] };
    if (query.category) where.category = { $in: [...query.category] };
    if (query.vehicleId !== undefined) where.vehicleId = query.vehicleId;
    if (query.rentalId !== undefined) where.rentalId = query.rentalId;
    if (query.guserId !== undefined) where.customerId = query.guserId;
    if (query.searchText !== undefined) {
      const pattern = containing(query.searchText);
      where.$or = [{ title: { $ilike: pattern } }, { description: { $ilike: pattern } }];
    }
    const [rows, total] = await em.findAndCount(Issue, where, {
      orderBy: { id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await toIssueDtos(em, rows), { total });
  },
});

const linkFields = {
  bookingId: Type.Optional(Nullable(Id())),
  rentalId: Type.Optional(Nullable(Id())),
  vehicleId: Type.Optional(Nullable(Id())),
  guserId: Type.Optional(Nullable(Id({ description: 'The affected customer.' }))),
  userGroupId: Type.Optional(Nullable(Id({ description: 'The business account.' }))),
  costCenterId: Type.Optional(Nullable(Id())),
  depositId: Type.Optional(Nullable(Id())),
};

const CreateIssue = component(
  'IssueCreate',
  Type.Object(
    {
      branchId: Type.Optional(
        Id({
          description:
            "Default: the rental's, else the booking's, else the vehicle's branch (F201 without any).",
        }),
      ),
      title: Title,
      description: Type.Optional(Str(4000)),
      category: IssueCategory,
      assignedTo: Type.Optional(IssueAssigneeInput),
      ...linkFields,
    },
    { additionalProperties: false },
  ),
);

type LinkBody = { [K in keyof typeof linkFields]?: number | null };

/** The links a body sends, in the entity's names (guserId → customerId); only those sent. */
function sentLinks(body: LinkBody): Partial<IssueLinks> {
  const sent: Partial<IssueLinks> = {};
  for (const name of issueLinkNames) {
    const value = name === 'customerId' ? body.guserId : body[name];
    if (value !== undefined) sent[name] = value;
  }
  return sent;
}

const noLinks: IssueLinks = {
  bookingId: null,
  rentalId: null,
  vehicleId: null,
  customerId: null,
  userGroupId: null,
  costCenterId: null,
  depositId: null,
};

/** The branch of a create body, resolved once (access check and handler share it). */
const branchOfBody = (ctx: RouteContext<unknown, unknown, Static<typeof CreateIssue>>) =>
  ctx.once('issue-branch', () => branchOfNewIssue(ctx.em, ctx.body));

export const createIssue = defineRoute({
  operationId: 'createIssue',
  method: 'post',
  path: '/issues',
  interface: 'back',
  summary: 'Open an issue (state CREATED)',
  description:
    "Links not sent are completed from the rental (vehicle, customer, business account, cost center, deposit) and the booking (customer, vehicle, business account, cost center); each named record must exist (F101), a vehicle, rental or booking must be in the issue's branch or below it.",
  tags,
  body: CreateIssue,
  access: {
    permission: 'ISSUE_MANAGE',
    branchOf: 'the body: branchId, else the rental, booking or vehicle',
    branch: branchOfBody,
  },
  responses: {
    201: {
      description: 'The issue',
      schema: IssueSchema,
      links: { GetIssue: { operationId: 'getIssue', parameters: { issueId: '$response.body#/id' } } },
    },
  },
  errors: ['F201', 'F101', 'B404'],
  async handler(ctx) {
    const { body, em } = ctx;
    const branchId = await branchOfBody(ctx);
    const sent = sentLinks(body);
    const links = await resolveIssueLinks(
      em,
      ctx.tenant,
      branchId,
      { ...noLinks, ...sent },
      new Set(Object.keys(sent) as (keyof IssueLinks)[]),
      true,
    );
    const issue = em.create(Issue, {
      branchId,
      title: body.title.trim(),
      description: body.description ?? null,
      category: body.category,
      ...links,
      createdBy: ctx.actor,
      assignedTo: body.assignedTo?.userAuthId ?? null,
      assignedToName: body.assignedTo?.firstLastName ?? null,
    });
    await em.flush();
    return created(await toIssueDto(em, issue), { Location: `${ctx.baseUrl}/issues/${issue.id}` });
  },
});

export const getIssue = defineRoute({
  operationId: 'getIssue',
  method: 'get',
  path: '/issues/{issueId}',
  interface: 'back',
  summary: 'One issue',
  tags,
  params: IssueIdParams,
  access: onTheIssue('ISSUE_READ'),
  responses: { 200: { description: 'The issue', schema: IssueSchema } },
  errors: ['F404'],
  async handler(ctx) {
    return ok(await toIssueDto(ctx.em, await issueById(ctx)));
  },
});

const UpdateIssue = component(
  'IssueUpdate',
  Type.Object(
    {
      state: Type.Optional(IssueState),
      title: Type.Optional(Title),
      description: Type.Optional(Nullable(Str(4000))),
      category: Type.Optional(IssueCategory),
      assignedTo: Type.Optional(Nullable(IssueAssigneeInput)),
      ...linkFields,
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const updateIssue = defineRoute({
  operationId: 'updateIssue',
  method: 'patch',
  path: '/issues/{issueId}',
  interface: 'back',
  summary: 'Edit an issue, change its links or move it to another state',
  description:
    'Moves: CREATED → WAITING | IN_REPAIR | CLOSED; WAITING → IN_REPAIR | CLOSED; IN_REPAIR → WAITING | CLOSED; CLOSED → CREATED (reopen). A CLOSED issue keeps its fields and links (F100) until it is reopened (`state: CREATED`; fields may come with the reopen, and with the close). Links sent replace the old ones (null removes one) and are checked as on create (F101), without completing the others. The branch does not change.',
  tags,
  params: IssueIdParams,
  body: UpdateIssue,
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 200: { description: 'The issue after the change', schema: IssueSchema } },
  errors: ['F404', 'F100', 'F101'],
  async handler(ctx) {
    const { body } = ctx;
    await issueById(ctx);
    const updated = await ctx.em.fork().transactional(async (tx) => {
      // The row lock serialises concurrent changes: each sees the state the previous one committed.
      const issue = await tx.findOneOrFail(Issue, ctx.params.issueId, {
        lockMode: LockMode.PESSIMISTIC_WRITE,
      });
      const from = issue.state;
      const to = body.state ?? from;
      const refusal = issueTransitionRefusal(from, to);
      if (refusal) throw new DomainError('F100', refusal);
      // Fields apply with the move: closing may come with a last edit, reopening with the first one.
      if (Object.keys(body).some((key) => key !== 'state') && !issueEditable(from) && !issueEditable(to))
        throw new DomainError('F100', `a ${from} issue cannot be edited; reopen it (state CREATED) first`);
      const sent = sentLinks(body);
      if (Object.keys(sent).length) {
        const current = { ...noLinks };
        for (const name of issueLinkNames) current[name] = issue[name] ?? null;
        const links = await resolveIssueLinks(
          tx,
          ctx.tenant,
          issue.branchId,
          { ...current, ...sent },
          new Set(Object.keys(sent) as (keyof IssueLinks)[]),
          false,
        );
        Object.assign(issue, links);
      }
      if (body.title !== undefined) issue.title = body.title.trim();
      if (body.description !== undefined) issue.description = body.description;
      if (body.category !== undefined) issue.category = body.category;
      if (body.assignedTo !== undefined) {
        issue.assignedTo = body.assignedTo?.userAuthId ?? null;
        issue.assignedToName = body.assignedTo?.firstLastName ?? null;
      }
      if (to !== from) {
        issue.state = to;
        issue.closedAt = isOpenIssue(to) ? null : new Date();
      }
      issue.updatedAt = new Date();
      return issue;
    });
    return ok(await toIssueDto(ctx.em, updated));
  },
});

const IssueDamageParams = Type.Object({ issueId: Id(), damageId: Id() });

export const linkIssueDamage = defineRoute({
  operationId: 'linkIssueDamage',
  method: 'post',
  path: '/issues/{issueId}/damages',
  interface: 'back',
  summary: 'Link a damage to the issue',
  description:
    "The damage must be in the issue's branch or below it (F101) and linked to no other issue (F102); linking it again changes nothing. The damage's `issueId` names the issue.",
  tags,
  params: IssueIdParams,
  body: Type.Object({ damageId: Id() }, { additionalProperties: false }),
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 200: { description: 'The issue with its damages', schema: IssueSchema } },
  errors: ['F404', 'F100', 'F101', 'F102'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    if (!issueEditable(issue.state))
      throw new DomainError('F100', `a ${issue.state} issue cannot be edited; reopen it first`);
    await ctx.em.fork().transactional(async (tx) => {
      const damage = await linkableDamage(tx, ctx.tenant, issue, ctx.body.damageId);
      damage.issueId = issue.id;
    });
    return ok(await toIssueDto(ctx.em, issue));
  },
});

export const unlinkIssueDamage = defineRoute({
  operationId: 'unlinkIssueDamage',
  method: 'delete',
  path: '/issues/{issueId}/damages/{damageId}',
  interface: 'back',
  summary: 'Unlink a damage from the issue',
  description: 'DM404 when the damage is not linked to this issue (or does not exist).',
  tags,
  params: IssueDamageParams,
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 204: { description: 'Unlinked' } },
  errors: ['F404', 'F100', 'DM404'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    if (!issueEditable(issue.state))
      throw new DomainError('F100', `a ${issue.state} issue cannot be edited; reopen it first`);
    const damage = await ctx.em.findOne(Damage, { id: ctx.params.damageId, issueId: issue.id });
    if (!damage)
      throw new DomainError('DM404', `damage ${ctx.params.damageId} is not linked to issue ${issue.id}`);
    damage.issueId = null;
    return noContent();
  },
});

export const issueRoutes = [
  listIssues,
  createIssue,
  getIssue,
  updateIssue,
  linkIssueDamage,
  unlinkIssueDamage,
];
