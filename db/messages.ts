// Queries and writes of the localized messages: the texts of a fallback chain (the app's hot read, one
// prepared statement), the languages a tenant has texts in, the tenant's default language (a setting),
// and the bulk import (one upsert statement).
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_LANGUAGE_SETTING, defaultLanguageOf, type MessageText } from '../domain/messages.js';
import { preparedRows } from './prepared.js';
import { effectiveSetting } from './settings.js';

/** The tenant's default language: its `messages.defaultLanguage` setting (branch 0), else `en`. */
export async function tenantDefaultLanguage(em: EntityManager, tenant: string): Promise<string> {
  const row = await effectiveSetting(em, tenant, DEFAULT_LANGUAGE_SETTING, undefined);
  return defaultLanguageOf(row?.value);
}

/** Which keys an app asks for: all of them, some by name, or a namespace (`poi.`). */
export interface MessageKeyFilter {
  keys?: readonly string[];
  prefix?: string;
}

/** Every text of the tenant in the chain's locales (and, when asked, of these keys or that prefix). */
export async function textsInLocales(
  em: EntityManager,
  tenant: string,
  locales: readonly string[],
  filter: MessageKeyFilter = {},
): Promise<MessageText[]> {
  const values: unknown[] = [tenant, [...locales]];
  let text =
    'select key, locale, text from localized_message where tenant_id = $1 and locale = any($2::text[])';
  if (filter.keys) {
    values.push([...filter.keys]);
    text += ` and key = any($${values.length}::text[])`;
  }
  if (filter.prefix !== undefined) {
    values.push(filter.prefix);
    text += ` and starts_with(key, $${values.length})`;
  }
  return preparedRows<MessageText>(em, text, values);
}

/** The locales the tenant has texts in, with how many each, by tag. */
export async function localeCounts(
  em: EntityManager,
  tenant: string,
): Promise<{ locale: string; messages: number }[]> {
  return preparedRows(
    em,
    'select locale, count(*)::int as messages from localized_message where tenant_id = $1 group by locale order by locale',
    [tenant],
  );
}

/** What a bulk import did: rows created, rows whose text changed, rows already as sent. */
export interface ImportOutcome {
  created: number;
  updated: number;
  unchanged: number;
}

/**
 * Creates or replaces the texts of these key+locale pairs in one statement (atomic; concurrent imports of
 * one pair serialize on the unique index). The batch must not name a pair twice (checked before).
 */
export async function upsertMessages(
  em: EntityManager,
  tenant: string,
  rows: readonly MessageText[],
  actor: string,
): Promise<ImportOutcome> {
  const written = await preparedRows<{ inserted: boolean }>(
    em,
    `insert into localized_message (tenant_id, key, locale, text, created_at, updated_at, updated_by)
     select $1, u.key, u.locale, u.text, now(), now(), $5
       from unnest($2::text[], $3::text[], $4::text[]) as u(key, locale, text)
     on conflict (tenant_id, key, locale) do update
       set text = excluded.text, updated_at = excluded.updated_at, updated_by = excluded.updated_by
       where localized_message.text is distinct from excluded.text
     returning (xmax = 0) as inserted`,
    [tenant, rows.map((row) => row.key), rows.map((row) => row.locale), rows.map((row) => row.text), actor],
  );
  const created = written.filter((row) => row.inserted).length;
  const updated = written.length - created;
  return { created, updated, unchanged: rows.length - written.length };
}
