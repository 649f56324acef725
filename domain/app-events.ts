// Events apps post (`POST /front/userevents?type=APP_…`), pure rules: which types an app may post, the
// Device-Position header (latitude then longitude, WGS84 decimal, `;` or a space between), and what of the
// optional request information is kept (obviously sensitive keys and values are dropped). docs/messages.md.

/** The spec's app event types; other names starting with APP_ are accepted too (apps add their own). */
export const appEventTypes = [
  'APP_START',
  'APP_LOGIN',
  'APP_SIGNUP',
  'APP_LOGOUT',
  'APP_CLOSE',
  'APP_INACTIVATE',
  'APP_ACTIVATE',
  'APP_MAP_NAVIGATION',
  'APP_VEHICLE_SELECTION',
  'APP_BT_ACTION',
  'APP_BT_ACTION_FAIL',
  'APP_BT_LOCK',
  'APP_BT_UNLOCK',
] as const;

/**
 * What an app may post: `APP_` and upper-case words of letters and digits joined by single underscores.
 * Legacy names (LOGIN, SIGNUP, LOGOUT, START) and the backend's own types (RENTAL_START, …) do not match.
 */
export const appEventTypePattern = '^APP_[A-Z0-9]+(_[A-Z0-9]+)*$';
export const APP_EVENT_TYPE_MAX_LENGTH = 64;

/** The largest request information kept, in bytes of the JSON body as sent ("small" in the spec). */
export const APP_EVENT_BODY_MAX_BYTES = 4096;

/** A WGS84 decimal degree: optional sign, up to three integer digits, optional fraction; no exponent, hex or NaN. */
const degree = '[+-]?\\d{1,3}(?:\\.\\d{1,15})?';
const devicePosition = new RegExp(`^\\s*(${degree})(?:\\s*;\\s*|\\s+)(${degree})\\s*$`);

/** Longest header value parsed; anything longer is no position (and is ignored, like any invalid value). */
export const DEVICE_POSITION_MAX_LENGTH = 64;

/**
 * The position of a Device-Position header (`52.52;13.405`, `52.52 13.405`, `52.52; 13.405`), or undefined
 * when it is missing or invalid (not two decimals, out of range): the spec says such values are ignored.
 */
export function parseDevicePosition(header: string | undefined): { lat: number; lng: number } | undefined {
  if (header === undefined || header.length > DEVICE_POSITION_MAX_LENGTH) return undefined;
  const match = devicePosition.exec(header);
  if (!match) return undefined;
  const lat = Number(match[1]);
  const lng = Number(match[2]);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return undefined;
  return { lat: lat + 0, lng: lng + 0 };
}

/** Words of a key naming a secret or a payment or identity document by themselves. */
const sensitiveWords = new Set([
  'password',
  'passwd',
  'pwd',
  'passcode',
  'passphrase',
  'pin',
  'otp',
  'secret',
  'token',
  'jwt',
  'bearer',
  'authorization',
  'cookie',
  'credential',
  'credentials',
  'cvv',
  'cvc',
  'cvv2',
  'card',
  'iban',
  'ssn',
  'passport',
]);

/** Word pairs that name one (`apiKey`, `licenseNumber`, `documentNumber`). */
const sensitivePairs = new Set([
  'api key',
  'private key',
  'access key',
  'account number',
  'license number',
  'licence number',
  'document number',
  'id number',
  'tax id',
  'social security',
]);

/** The lower-case words of a key: `accessToken`, `access_token`, `access-token`, `access.token` → access, token. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether a key names something the spec forbids apps to send (tokens, passwords, payment and identity data). */
export function isSensitiveKey(key: string): boolean {
  const words = wordsOf(key);
  if (words.some((word) => sensitiveWords.has(word))) return true;
  return words.some((word, index) => index > 0 && sensitivePairs.has(`${words[index - 1]} ${word}`));
}

/** Whether digits pass the Luhn check (card numbers). */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Whether a value looks like a secret whatever its key: a JWT, a bearer credential or a card number. */
export function isSensitiveValue(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (/^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(text)) return true;
  if (/^(bearer|basic)\s+\S{8,}$/i.test(text)) return true;
  const digits = text.replace(/[\s-]/g, '');
  return /^\d{13,19}$/.test(digits) && /^[\d\s-]+$/.test(text) && luhn(digits);
}

/** The request information kept, and the paths of what was dropped (never their values). */
export interface SanitizedRequestInfo {
  kept: Record<string, unknown>;
  dropped: string[];
}

/**
 * Drops sensitive keys and values from an app event's request information, at every depth (the contract
 * allows one nested level of objects and lists of scalars): what the spec says must not be sent is not
 * stored, and the event keeps the rest with the dropped paths named.
 */
export function sanitizeRequestInfo(info: Readonly<Record<string, unknown>>): SanitizedRequestInfo {
  const dropped: string[] = [];
  const clean = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) {
      if (value.some(isSensitiveValue)) {
        dropped.push(path);
        return undefined;
      }
      return value;
    }
    if (value && typeof value === 'object') {
      const kept: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const itemPath = `${path}.${key}`;
        if (isSensitiveKey(key) || isSensitiveValue(item)) {
          dropped.push(itemPath);
          continue;
        }
        const cleaned = clean(item, itemPath);
        if (cleaned !== undefined) kept[key] = cleaned;
      }
      return kept;
    }
    return value;
  };
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(info)) {
    if (isSensitiveKey(key) || isSensitiveValue(value)) {
      dropped.push(key);
      continue;
    }
    const cleaned = clean(value, key);
    if (cleaned !== undefined) kept[key] = cleaned;
  }
  return { kept, dropped };
}
