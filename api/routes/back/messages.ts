// Operator management of the localized messages apps show (the spec names only the codes M101, M102 and
// M404; these paths are the project's, beside the app's `/resources/messages`): list and filter, create,
// read, update, delete, and a bulk import. Texts are tenant-wide: reading needs MESSAGES_READ on some
// branch, writing MESSAGES_MANAGE on every root branch (they change every branch's app). See
// docs/messages.md.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { LocalizedMessage } from '../../../db/entities/LocalizedMessage.js';
import { upsertMessages } from '../../../db/messages.js';
import { DomainError } from '../../../domain/errors.js';
import {
  MESSAGE_IMPORT_MAX,
  MESSAGE_KEY_MAX_LENGTH,
  MESSAGE_TEXT_MAX_LENGTH,
  duplicateMessage,
  messageKeyPattern,
  reservedKeyReason,
  storedLocale,
  storedLocalePattern,
} from '../../../domain/messages.js';
import { authorizeOnBranchOrAnywhere, authorizeTenantWide } from '../../authorization.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Str } from '../../kernel/schemas.js';

const tags = ['Messages'];
const READ = 'MESSAGES_READ';
const MANAGE = 'MESSAGES_MANAGE';

const readAccess = {
  anyCaller: 'the handler requires MESSAGES_READ on some branch of the tenant (texts are tenant-wide).',
};
const manageAccess = {
  anyCaller:
    'tenant-wide: the handler requires MESSAGES_MANAGE on every root branch (texts change every branch’s app; AUTH002 otherwise).',
};

const MessageKey = Str(MESSAGE_KEY_MAX_LENGTH, {
  minLength: 1,
  pattern: messageKeyPattern,
  description:
    'Translation key: dot-separated segments of letters, digits, `_` and `-` (`app.welcome.title`). `system.…` and bare error codes are reserved (M102).',
});

const Locale = Str(35, {
  minLength: 2,
  pattern: storedLocalePattern,
  description:
    'BCP 47 language tag: language[-Script][-REGION] (`de`, `de-CH`, `zh-Hant-TW`, `es-419`); stored canonical (`de_ch` → `de-CH`).',
});

const Text = Str(MESSAGE_TEXT_MAX_LENGTH, { minLength: 1, description: 'The text shown by the app.' });

const MessageSchema = component(
  'LocalizedMessage',
  Type.Object(
    {
      id: Id(),
      key: Type.String(),
      locale: Type.String({ description: 'Canonical BCP 47 tag.' }),
      text: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      updatedBy: Type.String({ description: 'The operator or API client that wrote it last.' }),
    },
    { additionalProperties: false },
  ),
);

const toMessageDto = (message: LocalizedMessage): Static<typeof MessageSchema> => ({
  id: message.id,
  key: message.key,
  locale: message.locale,
  text: message.text,
  createdAt: message.createdAt.toISOString(),
  updatedAt: message.updatedAt.toISOString(),
  updatedBy: message.updatedBy,
});

/** The canonical form of a schema-valid tag (0022 for one no language can have, such as `und`). */
function canonicalOrFail(locale: string): string {
  const canonical = storedLocale(locale);
  if (!canonical)
    throw new DomainError('0022', `"${locale}" is not a language tag a text can be stored under`);
  return canonical;
}

/** Refuses a key the platform reserves (M102). */
function assertNotReserved(key: string): void {
  const reason = reservedKeyReason(key);
  if (reason) throw new DomainError('M102', reason);
}

async function messageOrFail(ctx: RouteContext<{ messageId: number }>): Promise<LocalizedMessage> {
  const message = await ctx.em.findOne(LocalizedMessage, ctx.params.messageId);
  if (!message) throw new DomainError('M404', `message ${ctx.params.messageId} not found`);
  return message;
}

/** Flushes a message write; another message with the key and locale meets the unique index (M101). */
async function flushMessage(ctx: RouteContext, key: string, locale: string): Promise<void> {
  try {
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('M101', `a message with key "${key}" in ${locale} exists`);
    throw error;
  }
}

/** Refuses a key and locale another message of the tenant has (M101), before writing. */
async function assertPairFree(ctx: RouteContext, key: string, locale: string, except = 0): Promise<void> {
  const other = await ctx.em.findOne(
    LocalizedMessage,
    { key, locale, id: { $ne: except } },
    { fields: ['id'] },
  );
  if (other) throw new DomainError('M101', `message ${other.id} has key "${key}" in ${locale}`);
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export const listMessages = defineRoute({
  operationId: 'listMessages',
  method: 'get',
  path: '/resources/messages',
  interface: 'back',
  summary: 'The tenant’s localized messages, by key and locale',
  description:
    'Filters combine: `key` (a part of the key, case ignored; the whole key with `exactMatch=true`), `locale` (repeatable; exact canonical tags, `de` does not include `de-CH`), `searchText` (a part of the text, case ignored). Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    key: Type.Optional(Str(MESSAGE_KEY_MAX_LENGTH, { minLength: 1 })),
    exactMatch: Type.Optional(Type.Boolean({ default: false })),
    locale: Type.Optional(Type.Array(Locale, { maxItems: 20, uniqueItems: true })),
    searchText: Type.Optional(Str(200, { minLength: 1 })),
  }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: readAccess,
  responses: { 200: { description: 'One page of messages', schema: Type.Array(MessageSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeOnBranchOrAnywhere(ctx, READ, undefined);
    const { query, page } = ctx;
    const where: Record<string, unknown> = {};
    if (query.key !== undefined)
      where.key = query.exactMatch ? query.key : { $ilike: `%${escapeLike(query.key)}%` };
    if (query.locale) where.locale = { $in: query.locale.map(canonicalOrFail) };
    if (query.searchText !== undefined) where.text = { $ilike: `%${escapeLike(query.searchText)}%` };
    const [rows, total] = await ctx.em.findAndCount(LocalizedMessage, where, {
      orderBy: { key: 'asc', locale: 'asc', id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toMessageDto), { total });
  },
});

export const getMessage = defineRoute({
  operationId: 'getMessage',
  method: 'get',
  path: '/resources/messages/{messageId}',
  interface: 'back',
  summary: 'One localized message',
  tags,
  params: Type.Object({ messageId: Id() }),
  access: readAccess,
  responses: { 200: { description: 'The message', schema: MessageSchema } },
  errors: ['AUTH002', 'M404'],
  async handler(ctx) {
    await authorizeOnBranchOrAnywhere(ctx, READ, undefined);
    return ok(toMessageDto(await messageOrFail(ctx)));
  },
});

const MessageInput = component(
  'LocalizedMessageCreate',
  Type.Object({ key: MessageKey, locale: Locale, text: Text }, { additionalProperties: false }),
);

export const createMessage = defineRoute({
  operationId: 'createMessage',
  method: 'post',
  path: '/resources/messages',
  interface: 'back',
  summary: 'Add a text for a key in one language',
  description:
    'One text per key and locale (M101 when the pair exists: change that message instead); reserved keys are M102.',
  tags,
  body: MessageInput,
  access: manageAccess,
  responses: {
    201: {
      description: 'The message',
      schema: MessageSchema,
      links: {
        GetMessage: { operationId: 'getMessage', parameters: { messageId: '$response.body#/id' } },
      },
    },
  },
  errors: ['AUTH002', 'M101', 'M102'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const { key, text } = ctx.body;
    const locale = canonicalOrFail(ctx.body.locale);
    assertNotReserved(key);
    await assertPairFree(ctx, key, locale);
    const message = ctx.em.create(LocalizedMessage, { key, locale, text, updatedBy: ctx.actor });
    await flushMessage(ctx, key, locale);
    return created(toMessageDto(message), { Location: `${ctx.baseUrl}/resources/messages/${message.id}` });
  },
});

const MessageChange = component(
  'LocalizedMessageChange',
  Type.Object(
    { key: Type.Optional(MessageKey), locale: Type.Optional(Locale), text: Type.Optional(Text) },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const updateMessage = defineRoute({
  operationId: 'updateMessage',
  method: 'patch',
  path: '/resources/messages/{messageId}',
  interface: 'back',
  summary: 'Change a message’s text, key or locale',
  description:
    'Fields not sent keep their value; a new key or locale must not be taken (M101) nor reserved (M102).',
  tags,
  params: Type.Object({ messageId: Id() }),
  body: MessageChange,
  access: manageAccess,
  responses: { 200: { description: 'The message', schema: MessageSchema } },
  errors: ['AUTH002', 'M101', 'M102', 'M404'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const message = await messageOrFail(ctx);
    const key = ctx.body.key ?? message.key;
    const locale = ctx.body.locale === undefined ? message.locale : canonicalOrFail(ctx.body.locale);
    if (key !== message.key) assertNotReserved(key);
    if (key !== message.key || locale !== message.locale) await assertPairFree(ctx, key, locale, message.id);
    const text = ctx.body.text ?? message.text;
    if (key !== message.key || locale !== message.locale || text !== message.text)
      Object.assign(message, { key, locale, text, updatedBy: ctx.actor });
    await flushMessage(ctx, key, locale);
    return ok(toMessageDto(message));
  },
});

export const deleteMessage = defineRoute({
  operationId: 'deleteMessage',
  method: 'delete',
  path: '/resources/messages/{messageId}',
  interface: 'back',
  summary: 'Remove a message (apps fall back to the next language of their chain)',
  tags,
  params: Type.Object({ messageId: Id() }),
  access: manageAccess,
  responses: { 204: { description: 'Removed' } },
  errors: ['AUTH002', 'M404'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    ctx.em.remove(await messageOrFail(ctx));
    return noContent();
  },
});

const ImportBody = component(
  'LocalizedMessageImport',
  Type.Object(
    {
      messages: Type.Array(MessageInput, {
        minItems: 1,
        maxItems: MESSAGE_IMPORT_MAX,
        description: 'Texts to create, or to replace where the key and locale exist.',
      }),
    },
    { additionalProperties: false },
  ),
);

const ImportOutcome = component(
  'LocalizedMessageImportOutcome',
  Type.Object(
    {
      created: Type.Integer({ minimum: 0 }),
      updated: Type.Integer({ minimum: 0, description: 'Existing messages whose text changed.' }),
      unchanged: Type.Integer({ minimum: 0, description: 'Existing messages that already had the text.' }),
    },
    { additionalProperties: false },
  ),
);

export const importMessages = defineRoute({
  operationId: 'importMessages',
  method: 'put',
  path: '/resources/messages/bulk',
  interface: 'back',
  summary: 'Bulk import: create or replace up to 1000 texts at once',
  description:
    'All or nothing: one reserved key (M102) or one key and locale named twice (M101) refuses the whole import; otherwise every pair is created or its text replaced in one statement. Messages not named are kept.',
  tags,
  body: ImportBody,
  access: manageAccess,
  responses: { 200: { description: 'What the import did', schema: ImportOutcome } },
  errors: ['AUTH002', 'M101', 'M102'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const rows = ctx.body.messages.map((row) => ({ ...row, locale: canonicalOrFail(row.locale) }));
    for (const row of rows) assertNotReserved(row.key);
    const twice = duplicateMessage(rows);
    if (twice) throw new DomainError('M101', `the import names key "${twice.key}" in ${twice.locale} twice`);
    return ok(await upsertMessages(ctx.em, ctx.tenant, rows, ctx.actor));
  },
});

export const messageRoutes = [
  listMessages,
  getMessage,
  createMessage,
  updateMessage,
  deleteMessage,
  importMessages,
];
