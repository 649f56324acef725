// The operator's issue representation, the lookups the issue routes share (the issue of the path, loaded
// once; access on its branch) and the checks of what an issue body names.
import { Type, type Static } from '@sinclair/typebox';
import { Damage } from '../../../db/entities/Damage.js';
import { Issue } from '../../../db/entities/Issue.js';
import { IssueComment } from '../../../db/entities/IssueComment.js';
import { IssueInvoice } from '../../../db/entities/IssueInvoice.js';
import type { EntityManager } from '../../../db/orm.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import { isOpenIssue, issueCategories, issueStates } from '../../../domain/issues.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

export const tags = ['Issues'];

export const IssueState = component('IssueState', StringEnum(issueStates));
export const IssueCategory = component('IssueCategory', StringEnum(issueCategories));

/** The assignee as the task's: user auth id and name as shown. */
export const IssueAssigneeInput = Type.Object(
  { userAuthId: Str(200, { minLength: 1 }), firstLastName: Type.Optional(Nullable(Str(200))) },
  { additionalProperties: false },
);

export const IssueSchema = component(
  'Issue',
  Type.Object(
    {
      id: Id(),
      branchId: Id({ description: 'The branch handling it; access is checked on it.' }),
      title: Type.String(),
      description: Nullable(Type.String()),
      category: IssueCategory,
      state: IssueState,
      open: Type.Boolean({ description: 'state is not CLOSED.' }),
      bookingId: Nullable(Id()),
      rentalId: Nullable(Id()),
      vehicleId: Nullable(Id()),
      guserId: Nullable(
        Id({ description: 'The affected customer: the issue invoices are addressed to them.' }),
      ),
      userGroupId: Nullable(Id({ description: 'The business account concerned (BUSINESS invoices).' })),
      costCenterId: Nullable(Id({ description: 'A cost center of that business account.' })),
      depositId: Nullable(
        Id({ description: "The rental's deposit the issue's invoices may be charged against." }),
      ),
      damageIds: Type.Array(Id(), { description: 'The damages linked to it, oldest first.' }),
      invoiceIds: Type.Array(Id(), { description: 'The invoices charged on it, oldest first.' }),
      commentCount: Type.Integer({ minimum: 0 }),
      assignedTo: Nullable(
        Type.Object(
          { userAuthId: Type.String(), firstLastName: Nullable(Type.String()) },
          { additionalProperties: false },
        ),
      ),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      closedAt: Nullable(DateTime({ description: 'When it was CLOSED; cleared when reopened.' })),
    },
    { additionalProperties: false },
  ),
);

export type IssueDto = Static<typeof IssueSchema>;

/** Issues as the API writes them, with their damages, invoices and comment counts (three queries a page). */
export async function toIssueDtos(em: EntityManager, issues: readonly Issue[]): Promise<IssueDto[]> {
  if (issues.length === 0) return [];
  const ids = issues.map((issue) => issue.id);
  const [damages, invoices, counts] = await Promise.all([
    em.find(Damage, { issueId: { $in: ids } }, { orderBy: { id: 'asc' }, fields: ['id', 'issueId'] }),
    em.find(IssueInvoice, { issue: { $in: ids } }, { orderBy: { id: 'asc' } }),
    em.execute<{ issue_id: number; n: string }[]>(
      `select issue_id, count(*) as n from issue_comment where tenant_id = ? and issue_id in (select jsonb_array_elements_text(?::jsonb)::int) group by issue_id`,
      [issues[0]!.tenant.id, JSON.stringify(ids)],
    ),
  ]);
  const commentsOf = new Map(counts.map((row) => [Number(row.issue_id), Number(row.n)]));
  return issues.map((issue) => ({
    id: issue.id,
    branchId: issue.branchId,
    title: issue.title,
    description: issue.description ?? null,
    category: issue.category,
    state: issue.state,
    open: isOpenIssue(issue.state),
    bookingId: issue.bookingId ?? null,
    rentalId: issue.rentalId ?? null,
    vehicleId: issue.vehicleId ?? null,
    guserId: issue.customerId ?? null,
    userGroupId: issue.userGroupId ?? null,
    costCenterId: issue.costCenterId ?? null,
    depositId: issue.depositId ?? null,
    damageIds: damages.filter((damage) => damage.issueId === issue.id).map((damage) => damage.id),
    invoiceIds: invoices.filter((link) => link.issue.id === issue.id).map((link) => link.invoice.id),
    commentCount: commentsOf.get(issue.id) ?? 0,
    assignedTo: issue.assignedTo
      ? { userAuthId: issue.assignedTo, firstLastName: issue.assignedToName ?? null }
      : null,
    createdBy: issue.createdBy,
    createdAt: issue.createdAt.toISOString(),
    updatedAt: issue.updatedAt.toISOString(),
    closedAt: issue.closedAt?.toISOString() ?? null,
  }));
}

/** One issue's representation. */
export async function toIssueDto(em: EntityManager, issue: Issue): Promise<IssueDto> {
  return (await toIssueDtos(em, [issue]))[0]!;
}

export const IssueIdParams = Type.Object({ issueId: Id() });

/** The issue of the path's `issueId`, loaded once (the access check and the handler share it); F404. */
export const issueById = (ctx: RouteContext<{ issueId: number }>) =>
  ctx.once('issue', async () => {
    const issue = await ctx.em.findOne(Issue, ctx.params.issueId);
    if (!issue) throw new DomainError('F404', `issue ${ctx.params.issueId} not found`);
    return issue;
  });

/** Access on the issue of the path: an operational `permission` on its branch. */
export const onTheIssue = (permission: string) => ({
  permission,
  branchOf: "the issue's branch",
  branch: async (ctx: RouteContext<{ issueId: number }>) => (await issueById(ctx)).branchId,
});

/** Access to the issue's invoices: a finance `permission` on the business unit behind the issue's branch. */
export const onTheIssueUnit = (permission: string) => ({
  permission,
  businessUnitOf: "the issue's branch",
  businessUnit: async (ctx: RouteContext<{ issueId: number }>) => (await issueUnit(ctx)).id,
});

/** The business unit behind the issue's branch, loaded once. */
export const issueUnit = (ctx: RouteContext<{ issueId: number }>) =>
  ctx.once('issue-unit', async () => businessUnitOfBranch(ctx.em, (await issueById(ctx)).branchId));

/** The comment of the path, of the path's issue (F405 otherwise, another tenant's included). */
export async function commentOf(
  ctx: RouteContext<{ issueId: number; commentId: number }>,
): Promise<IssueComment> {
  const issue = await issueById(ctx);
  const comment = await ctx.em.findOne(IssueComment, { id: ctx.params.commentId, issue: issue.id });
  if (!comment)
    throw new DomainError('F405', `comment ${ctx.params.commentId} of issue ${issue.id} not found`);
  return comment;
}
