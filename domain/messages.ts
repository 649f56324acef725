// Localized messages (pure rules): the translation keys apps resolve, the BCP 47 language tags texts are
// stored under, the fallback chain of a requested tag (RFC 4647 lookup: `de-CH` → `de` → the tenant's
// default language), and the keys the platform keeps for itself (M102). See docs/messages.md.
import { baseCode } from './errors.js';

/** The language every tenant falls back to when its `messages.defaultLanguage` setting is absent. */
export const PLATFORM_DEFAULT_LANGUAGE = 'en';

/** The setting (branch 0, tenant-wide) naming the tenant's default language: `{ "language": "de" }`. */
export const DEFAULT_LANGUAGE_SETTING = 'messages.defaultLanguage';

export const MESSAGE_KEY_MAX_LENGTH = 200;
export const MESSAGE_TEXT_MAX_LENGTH = 4000;
/** Longest tag stored or asked for (RFC 5646 advises supporting at least 35 characters). */
export const LOCALE_MAX_LENGTH = 35;
/** Most messages one bulk import may carry. */
export const MESSAGE_IMPORT_MAX = 1000;

/** Dot-separated segments of letters, digits, `_` and `-`, each starting with a letter or digit. */
export const messageKeyPattern = '^[A-Za-z0-9][A-Za-z0-9_-]*(\\.[A-Za-z0-9][A-Za-z0-9_-]*)*$';

/**
 * A tag a message is stored under: language (2–3 letters), optional script (4 letters), optional region
 * (2 letters or 3 digits); `_` is taken for `-` (Android and Java spell `de_CH`). Case is free here and
 * canonical after `storedLocale`.
 */
export const storedLocalePattern = '^[A-Za-z]{2,3}([-_][A-Za-z]{4})?([-_]([A-Za-z]{2}|[0-9]{3}))?$';

/** A tag an app may ask for: any well-formed BCP 47 shape (variants and extensions are ignored). */
export const requestedLocalePattern = '^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8}){0,15}$';

/** Prefix of the keys the platform reserves for its own texts (any letter case). */
export const RESERVED_KEY_PREFIX = 'system.';

const storedLocaleRegExp = new RegExp(storedLocalePattern);

/**
 * The canonical base tag (language[-Script][-REGION]) of a well-formed BCP 47 tag, variants and extensions
 * dropped (`de_ch-u-ca-gregory` → `de-CH`, deprecated codes replaced: `iw` → `he`); undefined when the tag
 * is not well formed.
 */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > LOCALE_MAX_LENGTH) return undefined;
  try {
    const locale = new Intl.Locale(tag.replaceAll('_', '-'));
    const base = [locale.language, locale.script, locale.region].filter(Boolean).join('-');
    return Intl.getCanonicalLocales(base)[0];
  } catch {
    return undefined;
  }
}

/**
 * The tag a message is stored under, canonical, or undefined when it is not language[-Script][-REGION]
 * (variants, extensions, private use and `und` are no language of a text).
 */
export function storedLocale(tag: string): string | undefined {
  if (!storedLocaleRegExp.test(tag)) return undefined;
  const canonical = canonicalLocale(tag);
  return canonical && canonical !== 'und' && storedLocaleRegExp.test(canonical) ? canonical : undefined;
}

/** A tag and its truncations, most specific first (RFC 4647 lookup): `zh-Hant-TW` → `zh-Hant`, `zh`. */
export function truncations(tag: string): string[] {
  const parts = tag.split('-');
  return parts.map((_, index) => parts.slice(0, parts.length - index).join('-'));
}

/**
 * The locales looked up for a request, in order: the requested tag and its truncations, then the default
 * language and its truncations (`de-CH` with default `en` → `de-CH`, `de`, `en`). Without a request, the
 * default language alone.
 */
export function fallbackChain(requested: string | undefined, defaultLanguage: string): string[] {
  const chain = [...(requested ? truncations(requested) : []), ...truncations(defaultLanguage)];
  return [...new Set(chain)];
}

/** The tenant's default language from its setting's value; the platform default when absent or malformed. */
export function defaultLanguageOf(settingValue: unknown): string {
  const language =
    settingValue && typeof settingValue === 'object'
      ? (settingValue as { language?: unknown }).language
      : undefined;
  return (typeof language === 'string' && storedLocale(language)) || PLATFORM_DEFAULT_LANGUAGE;
}

/** One stored text, as the resolution reads it. */
export interface MessageText {
  key: string;
  locale: string;
  text: string;
}

/**
 * Each key's text in the first locale of the chain that has one; keys with no text in the chain are left
 * out (the app keeps its built-in text). Keys come out sorted, so equal data gives an equal answer.
 */
export function resolveMessages(
  rows: readonly MessageText[],
  chain: readonly string[],
): Record<string, string> {
  const rank = new Map(chain.map((locale, index) => [locale, index]));
  const best = new Map<string, { rank: number; text: string }>();
  for (const row of rows) {
    const own = rank.get(row.locale);
    if (own === undefined) continue;
    const held = best.get(row.key);
    if (!held || own < held.rank) best.set(row.key, { rank: own, text: row.text });
  }
  const resolved: Record<string, string> = {};
  for (const key of [...best.keys()].sort()) resolved[key] = best.get(key)!.text;
  return resolved;
}

/**
 * Why a key is reserved by the platform (M102), or undefined when operators may use it: the `system.`
 * namespace, and the error catalogue's codes themselves (`AUTH101`, `U130.2`), which identify errors, not
 * texts: a localized error text goes under `error.<code>`.
 */
export function reservedKeyReason(
  key: string,
  isCatalogueCode: (code: string) => boolean = (code) => baseCode(code) !== undefined,
): string | undefined {
  if (key.toLowerCase().startsWith(RESERVED_KEY_PREFIX))
    return `keys starting with "${RESERVED_KEY_PREFIX}" are reserved by the platform`;
  if (isCatalogueCode(key))
    return `"${key}" is an error code of the catalogue; put its localized text under "error.${key}"`;
  return undefined;
}

/** The first key+locale pair a batch names twice (M101 for an import), or undefined. */
export function duplicateMessage(
  rows: readonly Pick<MessageText, 'key' | 'locale'>[],
): { key: string; locale: string } | undefined {
  const seen = new Set<string>();
  for (const row of rows) {
    const id = `${row.locale}\u0000${row.key}`;
    if (seen.has(id)) return { key: row.key, locale: row.locale };
    seen.add(id);
  }
  return undefined;
}

/** A language's name in itself and in English (`de` → Deutsch, German); the tag when ICU knows no name. */
export function languageNames(tag: string): { name: string; englishName: string } {
  const nameIn = (display: string) => {
    try {
      return new Intl.DisplayNames([display], { type: 'language', fallback: 'code' }).of(tag) ?? tag;
    } catch {
      return tag;
    }
  };
  return { name: nameIn(tag), englishName: nameIn('en') };
}
