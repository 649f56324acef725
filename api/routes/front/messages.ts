// The app's texts (`GET /resources/messages?locale=…`, `GET /resources/messages/languages`): translation
// keys resolved through the fallback chain of the asked language (`de-CH` → `de` → the tenant's default
// language). Anonymous calls are served, as apps show texts before anyone signs in; the texts are the
// same for every caller, so answers carry an ETag and may be cached. See docs/messages.md.
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { localeCounts, tenantDefaultLanguage, textsInLocales } from '../../../db/messages.js';
import { DomainError } from '../../../domain/errors.js';
import {
  MESSAGE_KEY_MAX_LENGTH,
  canonicalLocale,
  fallbackChain,
  languageNames,
  messageKeyPattern,
  requestedLocalePattern,
  resolveMessages,
} from '../../../domain/messages.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Str } from '../../kernel/schemas.js';

const tags = ['Messages'];

/** How long apps and shared caches may keep an answer before revalidating it with its ETag. */
const CACHE_CONTROL = 'public, max-age=60';

const cachingHeaders = {
  ETag: {
    description:
      'Strong validator of the answer: send it back in `If-None-Match` and an unchanged answer is `304 Not Modified` without a body.',
    schema: Str(100),
  },
  'Cache-Control': { description: `\`${CACHE_CONTROL}\`: the same for every caller.`, schema: Str(100) },
};

/** The headers of a cacheable answer: its ETag (a digest of the body) and Cache-Control. */
function cachingOf(body: unknown): Record<string, string> {
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 32);
  return { ETag: `"${digest}"`, 'Cache-Control': CACHE_CONTROL };
}

const anonymousReads = {
  anonymous:
    'apps show texts before anyone signs in; the texts are the tenant’s public app texts, the same for every caller. A token sent must be valid.',
};

const AppMessages = component(
  'AppMessages',
  Type.Object(
    {
      locale: Type.String({
        description:
          'The asked tag, canonical and without extensions; the default language when none was asked.',
      }),
      locales: Type.Array(Type.String(), {
        description: 'The locales looked up, in order: the asked tag, its truncations, the default language.',
      }),
      messages: Type.Record(Type.String(), Type.String(), {
        description:
          'Text of each key in the first locale of `locales` that has one; keys without any are absent (the app keeps its own text).',
      }),
    },
    { additionalProperties: false },
  ),
);

export const appMessages = defineRoute({
  operationId: 'appMessages',
  method: 'get',
  path: '/resources/messages',
  interface: 'front',
  summary: 'Localized texts for a language, resolved through its fallback chain',
  description:
    '`locale` is a BCP 47 tag (`de-CH`, `de_CH`; variants and extensions ignored); a language without texts falls back to the tenant’s default language (setting `messages.defaultLanguage`, else `en`). `keys` (repeatable) or `prefix` narrow the answer. Send the ETag back in `If-None-Match` for a `304 Not Modified`.',
  tags,
  query: Type.Object({
    locale: Type.Optional(Str(35, { minLength: 2, pattern: requestedLocalePattern })),
    keys: Type.Optional(
      Type.Array(Str(MESSAGE_KEY_MAX_LENGTH, { minLength: 1, pattern: messageKeyPattern }), {
        maxItems: 200,
        uniqueItems: true,
      }),
    ),
    prefix: Type.Optional(
      Str(MESSAGE_KEY_MAX_LENGTH, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
    ),
  }),
  access: anonymousReads,
  authentication: 'optional',
  responses: { 200: { description: 'The texts', schema: AppMessages, headers: cachingHeaders } },
  errors: [],
  async handler({ em, tenant, query }) {
    let requested: string | undefined;
    if (query.locale !== undefined) {
      requested = canonicalLocale(query.locale);
      if (!requested) throw new DomainError('0022', `"${query.locale}" is not a well-formed language tag`);
    }
    const defaultLanguage = await tenantDefaultLanguage(em, tenant);
    const locales = fallbackChain(requested, defaultLanguage);
    const rows = await textsInLocales(em, tenant, locales, { keys: query.keys, prefix: query.prefix });
    const body: Static<typeof AppMessages> = {
      locale: requested ?? defaultLanguage,
      locales,
      messages: resolveMessages(rows, locales),
    };
    return ok(body, { headers: cachingOf(body) });
  },
});

const Language = component(
  'AppLanguage',
  Type.Object(
    {
      locale: Type.String({ description: 'Canonical BCP 47 tag.' }),
      name: Type.String({ description: 'The language’s name in itself (Deutsch).' }),
      englishName: Type.String({ description: 'Its name in English (German).' }),
      isDefault: Type.Boolean({
        description: 'The tenant’s default language, the end of every fallback chain.',
      }),
      messageCount: Type.Integer({ minimum: 0, description: 'How many texts the tenant has in it.' }),
    },
    { additionalProperties: false },
  ),
);

export const appLanguages = defineRoute({
  operationId: 'appLanguages',
  method: 'get',
  path: '/resources/messages/languages',
  interface: 'front',
  summary: 'Languages the tenant has texts in, and its default language',
  description:
    'Every locale with at least one text, plus the default language (setting `messages.defaultLanguage`, else `en`) even without texts; by tag.',
  tags,
  access: anonymousReads,
  authentication: 'optional',
  responses: {
    200: {
      description: 'The languages',
      schema: Type.Array(Language, { maxItems: 1000 }),
      headers: cachingHeaders,
    },
  },
  errors: [],
  async handler({ em, tenant }) {
    const defaultLanguage = await tenantDefaultLanguage(em, tenant);
    const counts = new Map((await localeCounts(em, tenant)).map((row) => [row.locale, row.messages]));
    if (!counts.has(defaultLanguage)) counts.set(defaultLanguage, 0);
    const body = [...counts.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([locale, messageCount]) => ({
        locale,
        ...languageNames(locale),
        isDefault: locale === defaultLanguage,
        messageCount,
      }));
    return ok(body, { headers: cachingOf(body) });
  },
});

export const appMessageRoutes = [appMessages, appLanguages];
