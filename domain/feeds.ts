// Pure rules of the open mobility feeds (docs/feeds.md): what a published system's identifiers may be.
import { DomainError } from './errors.js';

/** A system id: lowercase letters, digits and dashes, starting with a letter or digit (URL-safe as is). */
export const FEED_SYSTEM_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';

/** Refuses (FD101) a language that is not a well-formed BCP-47 tag; answers its canonical form. */
export function canonicalLanguage(language: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(language);
    if (canonical) return canonical;
  } catch {
    // Falls through to the refusal.
  }
  throw new DomainError('FD101', `not a BCP-47 language tag: ${language}`);
}

/** Refuses (FD102) a time zone the runtime does not know. */
export function assertFeedTimeZone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new DomainError('FD102', `unknown time zone ${timezone}`);
  }
}
