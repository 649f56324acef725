// Comments on an issue: list (oldest first, paged), write, change and delete, with files uploaded
// before (POST /files) linked through the files domain. Any operator with ISSUE_MANAGE on the issue's
// branch comments; only the author changes or deletes a comment (F302), and files go only onto one's own
// comments (F301). See docs/issues.md.
import { Type, type Static } from '@sinclair/typebox';
import type { Issue } from '../../../db/entities/Issue.js';
import { IssueComment } from '../../../db/entities/IssueComment.js';
import { filesLinkedTo, linkFiles, setLinkedFiles, unlinkAllFiles } from '../../../db/files.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Str } from '../../kernel/schemas.js';
import { FileReferenceSchema, FileUuidList } from '../../shared/file-representation.js';
import { commentOf, IssueIdParams, issueById, onTheIssue, tags } from './issue-representation.js';

const CommentSchema = component(
  'IssueComment',
  Type.Object(
    {
      id: Id(),
      issueId: Id(),
      author: Type.Object(
        {
          userAuthId: Type.String({
            description: "The author's user auth id (operator or API client subject).",
          }),
        },
        { additionalProperties: false },
      ),
      text: Type.String(),
      files: Type.Array(FileReferenceSchema, { description: 'Its files, in link order.' }),
      createdAt: DateTime(),
      editedAt: Type.Union([DateTime(), Type.Null()], { description: 'When the author last changed it.' }),
    },
    { additionalProperties: false },
  ),
);

type CommentDto = Static<typeof CommentSchema>;

/** The operator's comment representations, with their files (one query for the page). */
async function toCommentDtos(em: EntityManager, comments: readonly IssueComment[]): Promise<CommentDto[]> {
  const files = await filesLinkedTo(
    em,
    'COMMENT',
    comments.map((comment) => comment.id),
  );
  return comments.map((comment) => ({
    id: comment.id,
    issueId: comment.issue.id,
    author: { userAuthId: comment.authorUserAuthId },
    text: comment.text,
    files: files.get(String(comment.id)) ?? [],
    createdAt: comment.createdAt.toISOString(),
    editedAt: comment.editedAt?.toISOString() ?? null,
  }));
}

const toCommentDto = async (em: EntityManager, comment: IssueComment) =>
  (await toCommentDtos(em, [comment]))[0]!;

/** The files of a comment are seen by whoever sees its issue: the issue's branch and customer. */
const scopeOf = (issue: Issue) => ({ branchId: issue.branchId, customerId: issue.customerId ?? null });

/** Comment text: 1–4000 characters, not blank, no NUL. */
const CommentText = Str(4000, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

const CommentParams = Type.Object({ issueId: Id(), commentId: Id() });

export const listIssueComments = defineRoute({
  operationId: 'listIssueComments',
  method: 'get',
  path: '/issues/{issueId}/comments',
  interface: 'back',
  summary: "An issue's comments, oldest first",
  tags,
  params: IssueIdParams,
  paged: { defaultSize: 50 },
  access: onTheIssue('ISSUE_READ'),
  responses: { 200: { description: 'One page of comments', schema: Type.Array(CommentSchema) } },
  errors: ['F404'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    const [rows, total] = await ctx.em.findAndCount(
      IssueComment,
      { issue: issue.id },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(await toCommentDtos(ctx.em, rows), { total });
  },
});

export const createIssueComment = defineRoute({
  operationId: 'createIssueComment',
  method: 'post',
  path: '/issues/{issueId}/comments',
  interface: 'back',
  summary: 'Comment on an issue (in any state)',
  description:
    'The caller is the author. `files`: uuids of files uploaded before (POST /files), linked to the comment (L404 unknown, L407 named twice).',
  tags,
  params: IssueIdParams,
  body: Type.Object(
    { text: CommentText, files: Type.Optional(FileUuidList) },
    { additionalProperties: false },
  ),
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 201: { description: 'The comment', schema: CommentSchema } },
  errors: ['F404', 'L404', 'L407'],
  async handler(ctx) {
    const issue = await issueById(ctx);
    // The comment and its file links commit together: a refused file leaves no comment behind.
    const comment = await ctx.em.transactional(async (tx) => {
      const row = tx.create(IssueComment, {
        issue: issue.id,
        authorUserAuthId: ctx.actor,
        text: ctx.body.text,
      });
      await tx.flush();
      if (ctx.body.files?.length)
        await linkFiles(tx, {
          entityType: 'COMMENT',
          entityId: row.id,
          fileUuids: ctx.body.files,
          linkedBy: ctx.actor,
          scope: scopeOf(issue),
        });
      await tx.flush();
      return row;
    });
    return created(await toCommentDto(ctx.em, comment), {
      Location: `${ctx.baseUrl}/issues/${issue.id}/comments/${comment.id}`,
    });
  },
});

export const updateIssueComment = defineRoute({
  operationId: 'updateIssueComment',
  method: 'patch',
  path: '/issues/{issueId}/comments/{commentId}',
  interface: 'back',
  summary: 'Change one of your comments',
  description:
    "Only the author changes a comment: its text (F302) or its files (F301). `files` makes the comment's files exactly these uuids (new ones linked, L404 unknown, L407 named twice; the ones left out unlinked).",
  tags,
  params: CommentParams,
  body: Type.Object(
    { text: Type.Optional(CommentText), files: Type.Optional(FileUuidList) },
    { additionalProperties: false, minProperties: 1 },
  ),
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 200: { description: 'The comment', schema: CommentSchema } },
  errors: ['F404', 'F405', 'F301', 'F302', 'L404', 'L407'],
  async handler(ctx) {
    const comment = await commentOf(ctx);
    const own = comment.authorUserAuthId === ctx.actor;
    if (ctx.body.files !== undefined && !own)
      throw new DomainError(
        'F301',
        `comment ${comment.id} is ${comment.authorUserAuthId}'s: files go only onto your own comments`,
      );
    if (!own) throw new DomainError('F302', `comment ${comment.id} is ${comment.authorUserAuthId}'s`);
    if (ctx.body.text !== undefined) comment.text = ctx.body.text;
    if (ctx.body.files !== undefined)
      await setLinkedFiles(ctx.em, {
        entityType: 'COMMENT',
        entityId: comment.id,
        fileUuids: ctx.body.files,
        linkedBy: ctx.actor,
        scope: scopeOf(await issueById(ctx)),
      });
    comment.editedAt = new Date();
    await ctx.em.flush();
    return ok(await toCommentDto(ctx.em, comment));
  },
});

export const deleteIssueComment = defineRoute({
  operationId: 'deleteIssueComment',
  method: 'delete',
  path: '/issues/{issueId}/comments/{commentId}',
  interface: 'back',
  summary: 'Delete one of your comments',
  description: 'Only the author deletes a comment (F302); its files stay, unlinked.',
  tags,
  params: CommentParams,
  access: onTheIssue('ISSUE_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['F404', 'F405', 'F302'],
  async handler(ctx) {
    const comment = await commentOf(ctx);
    if (comment.authorUserAuthId !== ctx.actor)
      throw new DomainError('F302', `comment ${comment.id} is ${comment.authorUserAuthId}'s`);
    await unlinkAllFiles(ctx.em, 'COMMENT', comment.id);
    ctx.em.remove(comment);
    return noContent();
  },
});

export const issueCommentRoutes = [
  listIssueComments,
  createIssueComment,
  updateIssueComment,
  deleteIssueComment,
];
