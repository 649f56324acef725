// Settings, pure: the areas, the registry of known keys (each with its TypeBox value schema and default,
// one entry per key, so a domain adds its key with one entry), the custom key families (the spec's `app.`
// prefix), and the checks a setting written through the management API passes: its key, area and value
// type, its branches, its value against the key's schema, and the rule that a setting never holds a
// secret. No I/O (branch existence and overlaps with stored rows are db/settings.ts). See docs/settings.md.
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { billingCycles, defaultGroupSettings, GROUP_SETTING_KEY } from './customer.js';
import { BOOKING_SETTINGS_KEY, defaultBookingSettings } from './booking.js';
import {
  AUTO_BILL_SETTING_KEY,
  MANUAL_CREDIT_SETTING_KEY,
  defaultManualCreditSettings,
  defaultAutoBillSettings,
  defaultDunningSettings,
  defaultPaymentRetrySettings,
  DUNNING_SETTING_KEY,
  PAYMENT_RETRY_SETTING_KEY,
} from './finance.js';
import { routingDefaults, routingSettingKey, routingStopLimit } from './maintenance.js';
import { defaultReservationSettings, RENTAL_RESERVATION_SETTING_KEY } from './rental.js';
import { RENTAL_DEPOSIT_SETTING_KEY } from './rental-pricing.js';
import {
  endRequirementNames,
  RENTAL_REQUIREMENTS_SETTING_KEY,
  RENTAL_REQUIREMENTS_VALUE_TYPE,
  requirementsSettingProblems,
  shippedRentalRequirements,
  startRequirementNames,
} from './rental-requirements.js';
import { defaultNoMovementSettings, RENTAL_NO_MOVEMENT_SETTING_KEY } from './rental-trip.js';
import { defaultRateLimits, rateLimitBounds, rateLimitSettingKey } from './rate-limits.js';
import { DEFAULT_LANGUAGE_SETTING, PLATFORM_DEFAULT_LANGUAGE, storedLocalePattern } from './messages.js';
import { serviceStatesV2 } from './vehicle.js';
import { defaultKpiSettings, INSIGHT_KPI_SETTING_KEY } from './insight.js';

/** Who a setting is for: the app, the operators' dashboard, the backend itself, or both app and dashboard. */
export const settingAreas = ['APP', 'DASHBOARD', 'CORE', 'SHARED'] as const;
export type SettingArea = (typeof settingAreas)[number];

/** The areas the app interface returns (spec: SettingSimple). */
export const appSettingAreas = ['APP', 'SHARED'] as const satisfies readonly SettingArea[];
/** The areas the operator interface's `GET /settings` returns. */
export const dashboardSettingAreas = ['DASHBOARD', 'SHARED'] as const satisfies readonly SettingArea[];

/** The branch id of the tenant-wide fallback value. */
export const TENANT_DEFAULT_BRANCH = 0;

/** A known setting key: what the management API fills in, checks and shows for it. */
export interface KnownSetting {
  /** Display name (management responses; the default of a new row's name). */
  name: string;
  area: SettingArea;
  /** The value type management responses show (the spec names e.g. RENTAL_RESERVATION_SETTINGS). */
  valueType: string;
  /** The shape of the value (an object); a value that does not match is named in the validation report. */
  schema: TSchema;
  /** What applies where no row does (readers lay stored values over it); absent when "nothing" is the default. */
  default?: object;
  /** The management responses' public visibility: whether the value may be shown to end users. */
  publicVisible: boolean;
  /** One sentence for docs/settings.md and the validation report. */
  description: string;
  /** Rules the schema cannot say (between fields), as messages about the value; empty when it passes. */
  check?: (value: unknown) => readonly string[];
}

const minutes = (maximum: number, minimum = 0) => Type.Integer({ minimum, maximum });
const decimalString = Type.String({ pattern: '^(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$', maxLength: 17 });
const settingObject = <P extends Parameters<typeof Type.Object>[0]>(properties: P) =>
  Type.Object(properties, { additionalProperties: false });

const requirementsConfig = settingObject({
  start: Type.Optional(Type.Array(Type.Union(startRequirementNames.map((n) => Type.Literal(n))))),
  end: Type.Optional(Type.Array(Type.Union(endRequirementNames.map((n) => Type.Literal(n))))),
  minimumAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 150 })),
  maximumAge: Type.Optional(Type.Integer({ minimum: 0, maximum: 150 })),
  licenseCategories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 16 }))),
  minimumHelmets: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
});

/**
 * Every setting key the project reads, by key. Adding a key is one entry here (and a row in
 * docs/settings.md); its reader keeps its own key constant and defaults, imported here.
 */
export const knownSettings: Readonly<Record<string, KnownSetting>> = {
  'app.map': {
    name: 'App map defaults',
    area: 'APP',
    valueType: 'JSON',
    schema: settingObject({
      center: Type.Optional(
        settingObject({
          lat: Type.Number({ minimum: -90, maximum: 90 }),
          lng: Type.Number({ minimum: -180, maximum: 180 }),
        }),
      ),
      zoom: Type.Optional(Type.Number({ minimum: 0, maximum: 22 })),
    }),
    publicVisible: true,
    description: "Where the app's map opens: center (WGS84) and zoom level.",
  },
  [DEFAULT_LANGUAGE_SETTING]: {
    name: 'Default language of the app texts',
    area: 'SHARED',
    valueType: 'JSON',
    schema: settingObject({ language: Type.String({ pattern: storedLocalePattern, maxLength: 35 }) }),
    default: { language: PLATFORM_DEFAULT_LANGUAGE },
    publicVisible: true,
    description:
      'The language every app text falls back to, the end of each fallback chain of `/resources/messages` (a BCP 47 tag: `de`, `de-CH`); only the tenant-wide row (branch 0) counts (docs/messages.md).',
  },
  [RENTAL_RESERVATION_SETTING_KEY]: {
    name: 'Rental reservation',
    area: 'CORE',
    valueType: 'RENTAL_RESERVATION_SETTINGS',
    schema: settingObject({
      reservationMinutes: Type.Optional(minutes(1440)),
      reservationMaxMinutes: Type.Optional(minutes(10_080)),
      bufferMinutes: Type.Optional(minutes(525_600)),
      blockRentalForSameVehicleMinutes: Type.Optional(minutes(10_080)),
      maxPaidReservationMinutes: Type.Optional(minutes(1440)),
    }),
    default: defaultReservationSettings,
    publicVisible: false,
    description:
      'Free reservation minutes per rental, the most free minutes within the reset window (bufferMinutes), the block on re-renting the same vehicle and the most paid reservation minutes.',
  },
  [RENTAL_REQUIREMENTS_SETTING_KEY]: {
    name: 'Rental requirements',
    area: 'CORE',
    valueType: RENTAL_REQUIREMENTS_VALUE_TYPE,
    schema: settingObject({
      default: Type.Optional(requirementsConfig),
      profiles: Type.Optional(
        Type.Record(Type.String({ minLength: 1, maxLength: 64 }), requirementsConfig, {
          additionalProperties: false,
        }),
      ),
    }),
    default: { default: shippedRentalRequirements },
    publicVisible: false,
    description:
      "Start and end requirements: `default`, and `profiles` by a vehicle category's rentalRequirementsKey.",
    check: requirementsSettingProblems,
  },
  [RENTAL_DEPOSIT_SETTING_KEY]: {
    name: 'Rental deposit',
    area: 'CORE',
    valueType: 'RENTAL_DEPOSIT_SETTINGS',
    schema: settingObject({
      amount: Type.Optional(decimalString),
      currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
      vehicleCategoryAmounts: Type.Optional(
        Type.Record(Type.String({ pattern: '^[1-9][0-9]{0,9}$' }), decimalString, {
          additionalProperties: false,
        }),
      ),
    }),
    default: {},
    publicVisible: false,
    description:
      'Deposit held at a rental start (decimal strings): `amount` for every category, `vehicleCategoryAmounts` by category id; none by default.',
  },
  [RENTAL_NO_MOVEMENT_SETTING_KEY]: {
    name: 'Rental without movement',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      minDisplacementMeters: Type.Optional(Type.Number({ minimum: 0, maximum: 100_000 })),
      minOdometerKm: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
    }),
    default: defaultNoMovementSettings,
    publicVisible: false,
    description: 'Below both thresholds a started rental ends as ENDED_NO_MOVEMENT.',
  },
  [BOOKING_SETTINGS_KEY]: {
    name: 'Booking timeline',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      minLeadMinutes: Type.Optional(minutes(525_600)),
      maxAdvanceDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
      maxDurationDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
      minDurationMinutes: Type.Optional(minutes(525_600, 1)),
      approvalDeadlineMinutesBeforeStart: Type.Optional(minutes(525_600)),
      autoDeliveryMinutesBeforeStart: Type.Optional(minutes(525_600)),
      pickupEarlyMinutes: Type.Optional(minutes(10_080)),
      pickupLateMinutes: Type.Optional(minutes(10_080)),
      noShowFee: Type.Optional(decimalString),
      overdueGraceMinutes: Type.Optional(minutes(10_080)),
      dropoffSlotMinutes: Type.Optional(minutes(1440, 1)),
    }),
    default: defaultBookingSettings,
    publicVisible: false,
    description:
      "The booking timeline's clocks: lead time, advance and duration limits, pickup window, no-show fee.",
  },
  [GROUP_SETTING_KEY]: {
    name: 'Business account defaults',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      billingCycle: Type.Optional(Type.Union(billingCycles.map((c) => Type.Literal(c)))),
      maxMembers: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    }),
    default: defaultGroupSettings,
    publicVisible: false,
    description: 'Billing cycle of new business accounts and their most members.',
  },
  'customers.creditCheck': {
    name: 'Configured credit check',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      status: Type.Optional(Type.Union(['GOOD', 'MEDIUM', 'BAD', 'UNKNOWN'].map((s) => Type.Literal(s)))),
      score: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    }),
    publicVisible: false,
    description:
      'What the configured credit-check adapter answers (no contracted agency); without it every check is UNKNOWN.',
  },
  'customers.verification': {
    name: 'Configured verification outcomes',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject(
      Object.fromEntries(
        ['LICENSE', 'ID_DOCUMENT', 'CUSTOM_EXTERNAL'].map((kind) => [
          kind,
          Type.Optional(
            Type.Union([Type.Literal('VERIFIED'), Type.Literal('REJECTED'), Type.Literal('REVIEW')]),
          ),
        ]),
      ),
    ),
    default: {},
    publicVisible: false,
    description:
      'The outcome per verification kind of the configured verification adapter; a kind not named goes to operator review.',
  },
  'customers.requestSigning': {
    name: 'App request signing',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      enabled: Type.Optional(Type.Boolean()),
      maxSkewSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    }),
    default: { enabled: false, maxSkewSeconds: 300 },
    publicVisible: false,
    description:
      "Whether sign-up and code endpoints require the app's request signature (the keys are app signing keys, never a setting).",
  },
  [PAYMENT_RETRY_SETTING_KEY]: {
    name: 'Payment retries',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      retryDays: Type.Optional(
        Type.Array(Type.Integer({ minimum: 1, maximum: 365 }), { minItems: 0, maxItems: 20 }),
      ),
      challengeTimeoutMinutes: Type.Optional(minutes(1440, 1)),
      challengeRetryWindowDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })),
    }),
    default: defaultPaymentRetrySettings,
    publicVisible: false,
    description: 'Days between automatic retries after a soft decline, and how long challenges wait.',
  },
  [AUTO_BILL_SETTING_KEY]: {
    name: 'Automatic billing',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({ enabled: Type.Optional(Type.Boolean()) }),
    default: defaultAutoBillSettings,
    publicVisible: false,
    description: 'Bill the invoices of an ended rental or a booking fee at once.',
  },
  [MANUAL_CREDIT_SETTING_KEY]: {
    name: 'Manual balance credit limit',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      maxAmount: Type.Optional(
        Type.String({ pattern: '^(0|[1-9][0-9]{0,9})(\\.[0-9]{1,6})?$', maxLength: 20 }),
      ),
    }),
    default: defaultManualCreditSettings,
    publicVisible: false,
    description:
      'The largest manual credit or debit (absolute value, in the balance currency) one request may post to a balance (J116 beyond it); read tenant-wide.',
  },
  [DUNNING_SETTING_KEY]: {
    name: 'Dunning',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      graceDays: Type.Optional(Type.Number({ minimum: 0, maximum: 3650 })),
      paymentTermDays: Type.Optional(Type.Number({ minimum: 0, maximum: 3650 })),
    }),
    default: defaultDunningSettings,
    publicVisible: false,
    description:
      'Days after billing (after the due date for payers invoiced by transfer) an unpaid invoice starts blocking new rentals and bookings (U134); paymentTermDays: the due date of an invoice paid by transfer, that long after billing.',
  },
  [routingSettingKey]: {
    name: 'Field route optimisation',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      enabled: Type.Optional(Type.Boolean()),
      maxStops: Type.Optional(Type.Integer({ minimum: 2, maximum: routingStopLimit })),
    }),
    default: routingDefaults,
    publicVisible: false,
    description: 'Whether the maintenance field routes are optimised, and the most stops one route takes.',
  },
  [INSIGHT_KPI_SETTING_KEY]: {
    name: 'KPI thresholds',
    area: 'DASHBOARD',
    valueType: 'JSON',
    schema: settingObject({
      idleAfterHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 8760 })),
      chargingTargetPercent: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    }),
    default: defaultKpiSettings,
    publicVisible: false,
    description:
      'Thresholds of the KPIs per branch: hours without a rental before a vehicle counts as idle, and the charge level charging vehicles count as over (categories without a chargingLimit).',
  },
  [rateLimitSettingKey('search')]: {
    name: 'Search rate limit',
    area: 'CORE',
    valueType: 'JSON',
    schema: settingObject({
      points: Type.Optional(Type.Integer(rateLimitBounds.points)),
      durationSeconds: Type.Optional(Type.Integer(rateLimitBounds.durationSeconds)),
    }),
    default: defaultRateLimits.search,
    publicVisible: false,
    description:
      'Searches (rentals, events, customers) one caller may make per tenant in a window of durationSeconds before RL101 (tenant-wide, branch 0; docs/observability.md).',
  },
};

/** A family of keys the registry does not list one by one: every key under its prefix is allowed. */
export interface CustomSettingFamily {
  prefix: string;
  area: SettingArea;
  schema: TSchema;
  publicVisible: boolean;
  description: string;
}

/** Any JSON object: a custom value's shape is agreed between the operator and its reader. */
const anyObject = Type.Record(Type.String(), Type.Unknown());

/**
 * Custom keys: `app.` for the app (spec: "custom app keys use an app. prefix"), `dashboard.` for the
 * operators' dashboard, and `maintenance.action.` for the maintenance actions `POST /vehicles/maintenance`
 * runs by key. A key that is neither known nor in a family is refused (ST101).
 */
export const customSettingFamilies: readonly CustomSettingFamily[] = [
  {
    prefix: 'app.',
    area: 'APP',
    schema: anyObject,
    publicVisible: true,
    description: 'Configuration of the white-label app; the shape is agreed between operator and app.',
  },
  {
    prefix: 'dashboard.',
    area: 'DASHBOARD',
    schema: anyObject,
    publicVisible: false,
    description:
      "Configuration of the operators' dashboard; the shape is agreed between operator and dashboard.",
  },
  {
    prefix: 'maintenance.action.',
    area: 'CORE',
    schema: settingObject({
      serviceStateV2: Type.Optional(Type.Union(serviceStatesV2.map((s) => Type.Literal(s)))),
      description: Type.Optional(Type.String({ maxLength: 500 })),
    }),
    publicVisible: false,
    description:
      'A maintenance action run by key (`POST /vehicles/maintenance?settingKey=`): the service state to set.',
  },
];

/** The syntax of a key: dot-separated segments of letters, digits, `_` and `-`. */
export const settingKeyPattern = '^[A-Za-z0-9][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*$';
const keySyntax = new RegExp(settingKeyPattern);

/** What a key is: a known key, a key of a custom family, or neither. */
export type SettingKeyKind =
  | { kind: 'known'; known: KnownSetting }
  | { kind: 'custom'; family: CustomSettingFamily }
  | { kind: 'unknown' };

/** Looks a key up in the registry, then in the custom families. */
export function settingKeyKind(key: string): SettingKeyKind {
  if (Object.hasOwn(knownSettings, key)) return { kind: 'known', known: knownSettings[key]! };
  const family = customSettingFamilies.find((f) => key.startsWith(f.prefix) && key.length > f.prefix.length);
  return family ? { kind: 'custom', family } : { kind: 'unknown' };
}

/** The codes a setting candidate's problems carry (docs/settings.md). */
export type SettingProblemCode = 'ST100' | 'ST101' | 'ST102' | 'ST103' | 'ST104' | 'ST105' | 'ST404' | 'B404';

/** One thing wrong with a setting: its code, where (a JSON pointer into the candidate) and what. */
export interface SettingProblem {
  errorCode: SettingProblemCode;
  path: string;
  message: string;
}

/** A setting as a client writes it (create, update, bulk item, validate item). */
export interface SettingCandidate {
  key: string;
  area?: SettingArea;
  valueType?: string;
  branchIds: readonly number[];
  value: unknown;
}

/** What a candidate resolves to: the area, value type, name and visibility a new row takes by default. */
export interface SettingDefaults {
  area: SettingArea;
  valueType: string;
  name: string;
  publicVisible: boolean;
}

// ---------------------------------------------------------------------------------------------------
// No secrets: configuration is readable by operators (and APP/SHARED values by every app), so a
// credential must live where credentials live (app signing keys, the payment gateway's configuration).

/** Words that name a credential; a field (or key segment) made of them is refused (ST102). */
const secretWords = [
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'signingkey',
  'clientsecret',
  'credential',
  'credentials',
  'bearer',
  'sessionid',
];
/** Word pairs that name a credential when adjacent (`api_key`, `privateKey`, `access-key`…). */
const secretPairs = new Set([
  'api key',
  'private key',
  'secret key',
  'access key',
  'signing key',
  'client secret',
  'session id',
  'auth token',
]);

/** The words of a field name: camelCase, snake_case, kebab-case and dots split, lower-cased. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/** Whether a field name (or key) looks like it holds a credential. */
export function looksLikeSecretName(name: string): boolean {
  const words = wordsOf(name);
  if (words.some((word) => secretWords.includes(word))) return true;
  if (secretWords.includes(words.join(''))) return true;
  for (let i = 0; i + 1 < words.length; i += 1)
    if (secretPairs.has(`${words[i]} ${words[i + 1]}`)) return true;
  return false;
}

/** Shapes of credentials: PEM blocks, JWTs, and the prefixes of widely used API keys and tokens. */
const secretValuePatterns: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]+-----/, // PEM: private keys, certificates
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/, // JWT / JWS (header.payload.signature)
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/, // Stripe secret and restricted keys
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, // AWS access key ids
  /\bgh[pousr]_[A-Za-z0-9]{30,}/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/, // Slack tokens
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API keys
  /^Bearer\s+\S{10,}/i, // an Authorization header value
  /:\/\/[^/\s:@]+:[^/\s@]+@/, // credentials inside a URL (scheme://user:password@host)
];

/** Whether a string value looks like a credential. */
export function looksLikeSecretValue(text: string): boolean {
  return secretValuePatterns.some((pattern) => pattern.test(text));
}

// ---------------------------------------------------------------------------------------------------
// The checks

/** The most a value may hold: serialized length, nesting depth and number of nodes. */
export const settingValueLimits = { maxLength: 65_536, maxDepth: 16, maxNodes: 10_000 } as const;

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
/** A field name fit for a message: bounded, without control characters (NUL included). */
const printable = (name: string) => JSON.stringify(name.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 100)); // eslint-disable-line no-control-regex

/**
 * The value's structural and secrecy problems: not an object, NUL characters (PostgreSQL cannot store
 * them), non-finite numbers, too deep, too large, and fields or strings that look like credentials. The
 * suspicious value itself is never repeated in a message.
 */
function valueShapeProblems(value: unknown): SettingProblem[] {
  const problems: SettingProblem[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [{ errorCode: 'ST100', path: '/value', message: 'the value must be a JSON object' }];
  let nodes = 0;
  let tooDeep = false;
  const walk = (node: unknown, path: string, depth: number): void => {
    nodes += 1;
    if (nodes > settingValueLimits.maxNodes) return;
    if (depth > settingValueLimits.maxDepth) {
      tooDeep = true;
      return;
    }
    if (typeof node === 'string') {
      if (node.includes('\u0000'))
        problems.push({ errorCode: 'ST100', path, message: 'a string holds a NUL character' });
      else if (looksLikeSecretValue(node))
        problems.push({
          errorCode: 'ST102',
          path,
          message: 'looks like a credential (a key, token or password); settings must not hold secrets',
        });
      return;
    }
    if (typeof node === 'number') {
      if (!Number.isFinite(node))
        problems.push({ errorCode: 'ST100', path, message: 'a number is not finite' });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${path}/${index}`, depth + 1));
      return;
    }
    if (typeof node === 'object' && node !== null) {
      for (const [name, item] of Object.entries(node)) {
        const itemPath = `${path}/${pointerSegment(name)}`;
        if (name.includes('\u0000')) {
          problems.push({ errorCode: 'ST100', path, message: 'a field name holds a NUL character' });
          continue;
        }
        if (looksLikeSecretName(name))
          problems.push({
            errorCode: 'ST102',
            path: itemPath,
            message: `the field ${printable(name)} names a credential; settings must not hold secrets`,
          });
        walk(item, itemPath, depth + 1);
      }
    }
  };
  walk(value, '/value', 0);
  if (nodes > settingValueLimits.maxNodes)
    problems.push({
      errorCode: 'ST100',
      path: '/value',
      message: `the value has more than ${settingValueLimits.maxNodes} elements`,
    });
  if (tooDeep)
    problems.push({
      errorCode: 'ST100',
      path: '/value',
      message: `the value nests deeper than ${settingValueLimits.maxDepth} levels`,
    });
  if (problems.length === 0 && JSON.stringify(value).length > settingValueLimits.maxLength)
    problems.push({
      errorCode: 'ST100',
      path: '/value',
      message: `the value is longer than ${settingValueLimits.maxLength} characters as JSON`,
    });
  return problems;
}

/** The value against the schema of its key (and the key's own rules); at most 20 problems. */
function schemaProblems(schema: TSchema, check: KnownSetting['check'], value: unknown): SettingProblem[] {
  const problems: SettingProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    // A union's members each report; the union's own error names the path once.
    if (problems.some((p) => p.path === `/value${error.path}`)) continue;
    problems.push({ errorCode: 'ST100', path: `/value${error.path}`, message: error.message });
    if (problems.length >= 20) return problems;
  }
  if (problems.length === 0 && check)
    for (const message of check(value)) problems.push({ errorCode: 'ST100', path: '/value', message });
  return problems;
}

/**
 * Everything wrong with a candidate that needs no database: the key (known, a custom family, syntax,
 * credential-like), area and value type against the key's, branch 0 alone, and the value (shape, secrets,
 * the key's schema). Also what a new row of this key takes by default.
 */
export function settingCandidateProblems(candidate: SettingCandidate): {
  problems: SettingProblem[];
  defaults: SettingDefaults | undefined;
} {
  const problems: SettingProblem[] = [];
  const { key } = candidate;
  if (!keySyntax.test(key) || key.length > 200)
    problems.push({
      errorCode: 'ST101',
      path: '/key',
      message: 'a key is dot-separated segments of letters, digits, _ and - (at most 200 characters)',
    });
  else if (looksLikeSecretName(key))
    problems.push({
      errorCode: 'ST102',
      path: '/key',
      message: 'the key names a credential; settings must not hold secrets',
    });
  const kind = settingKeyKind(key);
  let defaults: SettingDefaults | undefined;
  let schema: TSchema | undefined;
  let check: KnownSetting['check'];
  if (kind.kind === 'known') {
    const { known } = kind;
    defaults = {
      area: known.area,
      valueType: known.valueType,
      name: known.name,
      publicVisible: known.publicVisible,
    };
    schema = known.schema;
    check = known.check;
    if (candidate.valueType !== undefined && candidate.valueType !== known.valueType)
      problems.push({
        errorCode: 'ST103',
        path: '/valueType',
        message: `the value type of ${key} is ${known.valueType}`,
      });
  } else if (kind.kind === 'custom') {
    const { family } = kind;
    defaults = {
      area: family.area,
      valueType: candidate.valueType ?? 'JSON',
      name: key,
      publicVisible: family.publicVisible,
    };
    schema = family.schema;
  } else if (problems.length === 0)
    problems.push({
      errorCode: 'ST101',
      path: '/key',
      message: `${key} is not a known setting key; custom keys start with ${customSettingFamilies.map((f) => f.prefix).join(', ')}`,
    });
  if (defaults && candidate.area !== undefined && candidate.area !== defaults.area)
    problems.push({ errorCode: 'ST103', path: '/area', message: `the area of ${key} is ${defaults.area}` });
  if (candidate.branchIds.includes(TENANT_DEFAULT_BRANCH) && candidate.branchIds.length > 1)
    problems.push({
      errorCode: 'ST105',
      path: '/branchIds',
      message: 'branch 0 (the tenant-wide fallback) stands alone: it already covers every branch',
    });
  const shape = valueShapeProblems(candidate.value);
  problems.push(...shape);
  if (shape.length === 0 && schema) problems.push(...schemaProblems(schema, check, candidate.value));
  return { problems, defaults };
}

/** The order in which a refused write names its code: the first problem of the first code listed. */
const codePrecedence: readonly SettingProblemCode[] = [
  'ST404',
  'ST101',
  'ST102',
  'ST103',
  'ST105',
  'B404',
  'ST100',
  'ST104',
];

/** The code a write refused for these problems answers, and a message naming each (bounded). */
export function refusalOf(problems: readonly SettingProblem[]): {
  code: SettingProblemCode;
  message: string;
} {
  const code = codePrecedence.find((c) => problems.some((p) => p.errorCode === c)) ?? problems[0]!.errorCode;
  const named = problems
    .filter((p) => p.errorCode === code)
    .slice(0, 10)
    .map((p) => `${p.path}: ${p.message}`);
  return { code, message: named.join('; ').slice(0, 2000) };
}
