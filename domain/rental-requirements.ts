// Start and end requirements of rentals (pure: no I/O, no Node built-ins; importable from workflows).
//
// What a rental needs is configured per branch (the `rental.requirements` setting, inherited along the
// branch tree) and per vehicle category (the category's `rentalRequirementsKey` selects a profile of
// that setting). Start requirements look at the customer (verification, terms, payment, authority, age,
// licence, business context); end requirements look at the vehicle's last reported state and position,
// the user's position and the end branch's areas. Every failed requirement carries a catalogue code.
import { distance } from '@turf/turf';
import type { ErrorCodeLike } from './errors.js';
import { DomainError } from './errors.js';
import type { TermsAcceptanceState, VerificationState } from './customer.js';
import {
  areasAt,
  endRentalRestricted,
  geofenceContains,
  geofenceVerdict,
  localWeekdayAndMinute,
  scheduleInForce,
  type GeofenceGeometry,
  type LatLng,
  type PreparedAreas,
  type VehicleSnapshot,
} from './geofence.js';
import type { PowerState, VehicleSensors } from './vehicle.js';

/** Requirements checked before a rental starts (and explained by `/rental-requirements/start`). */
export const startRequirementNames = [
  'ACCOUNT_NOT_BLOCKED',
  'EMAIL_VERIFIED',
  'PHONE_VERIFIED',
  'LICENSE_VERIFIED',
  'ID_VERIFIED',
  'MANUAL_VERIFIED',
  'CUSTOM_EXTERNAL_VERIFIED',
  'TERMS_ACCEPTED',
  'PAYMENT_METHOD',
  'PAYMENT_PRE_AUTHORIZATION',
  'RENTAL_AUTHORITY',
  'MINIMUM_AGE',
  'MAXIMUM_AGE',
  'LICENSE_CATEGORY',
  'BUSINESS_ACCOUNT',
] as const;
export type StartRequirementName = (typeof startRequirementNames)[number];

/**
 * Not configurable, checked at every start whatever the configuration: dunning (the `finance.dunning`
 * setting; U134 while an invoice is unpaid past its grace period). A report lists it only when it fails.
 */
export const unpaidInvoicesRequirement = 'NO_UNPAID_INVOICES';
/** Every name a start requirements report may show: the configurable ones and NO_UNPAID_INVOICES. */
export const reportedStartRequirementNames = [...startRequirementNames, unpaidInvoicesRequirement] as const;
export type ReportedStartRequirementName = (typeof reportedStartRequirementNames)[number];

/** The spec's seventeen end requirements, exactly as its table names them. */
export const endRequirementNames = [
  'IN_BUSINESS_AREA',
  'USER_IN_BUSINESS_AREA',
  'NOT_IN_PROHIBITED_AREA',
  'USER_NOT_IN_PROHIBITED_AREA',
  'VEHICLE_IN_STATION_AREA',
  'VEHICLE_LOCKED_IN_STATION',
  'IS_CHARGING',
  'TAILBOX_CLOSED',
  'HELMETS_PLUGGED_IN',
  'EXISTING_HELMETS_PLUGGED_IN',
  'EXISTING_RFID_CARD_HOLDER_CARDS_RETURNED',
  'BIKE_LOCK_LOCKED',
  'POWER_STATE_OFF',
  'STATUS_TURNED_OFF',
  'DOORS_CLOSED',
  'KEY_IN_HOLDER',
  'PARK_BRAKE_ON',
] as const;
export type EndRequirementName = (typeof endRequirementNames)[number];

/** The catalogue code each failed start requirement answers with (some requirements have more). */
export const startRequirementCodes = {
  ACCOUNT_NOT_BLOCKED: 'U131',
  EMAIL_VERIFIED: 'RQ101',
  PHONE_VERIFIED: 'RQ102',
  LICENSE_VERIFIED: 'RQ103',
  ID_VERIFIED: 'RQ104',
  MANUAL_VERIFIED: 'RQ105',
  CUSTOM_EXTERNAL_VERIFIED: 'RQ106',
  TERMS_ACCEPTED: 'U601',
  PAYMENT_METHOD: 'P104',
  PAYMENT_PRE_AUTHORIZATION: 'RQ107',
  RENTAL_AUTHORITY: 'RQ108',
  MINIMUM_AGE: 'U132',
  MAXIMUM_AGE: 'U133',
  LICENSE_CATEGORY: 'RQ109',
  BUSINESS_ACCOUNT: 'RQ110',
} as const satisfies Record<StartRequirementName, ErrorCodeLike>;

/** The catalogue code each failed end requirement answers with (R131 and R148 are the spec's). */
export const endRequirementCodes = {
  IN_BUSINESS_AREA: 'R131',
  USER_IN_BUSINESS_AREA: 'RQ201',
  NOT_IN_PROHIBITED_AREA: 'RQ202',
  USER_NOT_IN_PROHIBITED_AREA: 'RQ203',
  VEHICLE_IN_STATION_AREA: 'RQ204',
  VEHICLE_LOCKED_IN_STATION: 'RQ205',
  IS_CHARGING: 'RQ206',
  TAILBOX_CLOSED: 'RQ207',
  HELMETS_PLUGGED_IN: 'RQ208',
  EXISTING_HELMETS_PLUGGED_IN: 'RQ209',
  EXISTING_RFID_CARD_HOLDER_CARDS_RETURNED: 'RQ210',
  BIKE_LOCK_LOCKED: 'R148',
  POWER_STATE_OFF: 'RQ211',
  STATUS_TURNED_OFF: 'RQ212',
  DOORS_CLOSED: 'RQ213',
  KEY_IN_HOLDER: 'RQ214',
  PARK_BRAKE_ON: 'RQ215',
} as const satisfies Record<EndRequirementName, ErrorCodeLike>;

/** What one branch (and vehicle category, through its profile) requires of a rental. */
export interface RentalRequirementsConfig {
  start: StartRequirementName[];
  end: EndRequirementName[];
  /** MINIMUM_AGE: full years at the booking start (or now). */
  minimumAge?: number;
  /** MAXIMUM_AGE: full years at the booking start (or now). */
  maximumAge?: number;
  /** LICENSE_CATEGORY: the customer must hold at least one of these driving licence categories. */
  licenseCategories?: string[];
  /** HELMETS_PLUGGED_IN: helmets that must be in their holders (default 1). */
  minimumHelmets?: number;
}

/**
 * The `rental.requirements` setting (value type RENTAL_REQUIREMENTS): `profiles` by the key a vehicle
 * category names in `rentalRequirementsKey`, and `default` for categories without a key (or whose key
 * names no profile). Neither: the rental has no requirements.
 */
export interface RentalRequirementsSetting {
  default?: RentalRequirementsConfig;
  profiles?: Record<string, RentalRequirementsConfig>;
}

export const RENTAL_REQUIREMENTS_SETTING_KEY = 'rental.requirements';
export const RENTAL_REQUIREMENTS_VALUE_TYPE = 'RENTAL_REQUIREMENTS';

/** No requirements at all (a setting that names none for the category). */
export const noRequirements: RentalRequirementsConfig = { start: [], end: [] };

/**
 * The shipped default: what a branch requires when no `rental.requirements` setting applies to it (none
 * on the branch, its ancestors or the tenant). Every rental is priced (it pins its pricing version when it
 * is created; ODP104 without one), so its payer needs a payment method (or, once benefits are modelled, a
 * package): P104 otherwise. A setting replaces it as a whole.
 */
export const shippedRentalRequirements: Readonly<RentalRequirementsConfig> = {
  start: ['PAYMENT_METHOD'],
  end: [],
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const configKeys = new Set([
  'start',
  'end',
  'minimumAge',
  'maximumAge',
  'licenseCategories',
  'minimumHelmets',
]);

/** The problems of one requirements configuration (empty when valid); unknown keys and names are refused. */
export function requirementsConfigProblems(value: unknown, path = 'configuration'): string[] {
  if (!isObject(value)) return [`${path} must be an object`];
  const problems: string[] = [];
  for (const key of Object.keys(value))
    if (!configKeys.has(key)) problems.push(`${path}.${key} is not a requirements key`);
  const names = (key: 'start' | 'end', allowed: readonly string[]) => {
    const list = value[key];
    if (list === undefined) return;
    if (!Array.isArray(list)) return problems.push(`${path}.${key} must be an array of requirement names`);
    for (const name of list)
      if (typeof name !== 'string' || !allowed.includes(name))
        problems.push(`${path}.${key} names an unknown requirement: ${String(name)}`);
    if (new Set(list).size !== list.length) problems.push(`${path}.${key} names a requirement twice`);
  };
  names('start', startRequirementNames);
  names('end', endRequirementNames);
  const years = (key: 'minimumAge' | 'maximumAge' | 'minimumHelmets', max: number) => {
    const n = value[key];
    if (n !== undefined && (!Number.isInteger(n) || (n as number) < 0 || (n as number) > max))
      problems.push(`${path}.${key} must be an integer from 0 to ${max}`);
  };
  years('minimumAge', 150);
  years('maximumAge', 150);
  years('minimumHelmets', 10);
  if (
    typeof value.minimumAge === 'number' &&
    typeof value.maximumAge === 'number' &&
    value.minimumAge > value.maximumAge
  )
    problems.push(`${path}.minimumAge exceeds maximumAge`);
  const categories = value.licenseCategories;
  if (
    categories !== undefined &&
    (!Array.isArray(categories) ||
      categories.some((c) => typeof c !== 'string' || c.length === 0 || c.length > 16))
  )
    problems.push(`${path}.licenseCategories must be an array of licence categories (1–16 characters)`);
  const start = Array.isArray(value.start) ? (value.start as unknown[]) : [];
  if (start.includes('MINIMUM_AGE') && value.minimumAge === undefined)
    problems.push(`${path}: MINIMUM_AGE needs minimumAge`);
  if (start.includes('MAXIMUM_AGE') && value.maximumAge === undefined)
    problems.push(`${path}: MAXIMUM_AGE needs maximumAge`);
  if (start.includes('LICENSE_CATEGORY') && !Array.isArray(categories))
    problems.push(`${path}: LICENSE_CATEGORY needs licenseCategories`);
  return problems;
}

/** The problems of a whole `rental.requirements` setting value (empty when valid). */
export function requirementsSettingProblems(value: unknown): string[] {
  if (!isObject(value)) return ['the setting value must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(value))
    if (key !== 'default' && key !== 'profiles') problems.push(`${key} is not a key of the setting`);
  if (value.default !== undefined) problems.push(...requirementsConfigProblems(value.default, 'default'));
  if (value.profiles !== undefined) {
    if (!isObject(value.profiles)) problems.push('profiles must be an object keyed by rentalRequirementsKey');
    else
      for (const [key, profile] of Object.entries(value.profiles))
        problems.push(...requirementsConfigProblems(profile, `profiles.${key}`));
  }
  return problems;
}

/**
 * The requirements of a category under a setting value: the profile its `rentalRequirementsKey` names,
 * else the default, else none; without a setting, the shipped default (profile null). RQ100 when the
 * stored setting is invalid (an operator must fix it: a broken configuration never silently means "no
 * requirements").
 */
export function requirementsFor(
  settingValue: unknown,
  rentalRequirementsKey: string | undefined,
): { config: RentalRequirementsConfig; profile: string | null } {
  if (settingValue === undefined || settingValue === null)
    return { config: withDefaults(shippedRentalRequirements), profile: null };
  const problems = requirementsSettingProblems(settingValue);
  if (problems.length)
    throw new DomainError('RQ100', `the rental.requirements setting is invalid: ${problems.join('; ')}`, {
      problems,
    });
  const setting = settingValue as RentalRequirementsSetting;
  const profile =
    rentalRequirementsKey !== undefined &&
    setting.profiles &&
    Object.hasOwn(setting.profiles, rentalRequirementsKey)
      ? setting.profiles[rentalRequirementsKey]
      : undefined;
  if (profile) return { config: withDefaults(profile), profile: rentalRequirementsKey! };
  if (setting.default) return { config: withDefaults(setting.default), profile: 'default' };
  return { config: noRequirements, profile: null };
}

/** A copy of a configuration with both lists present (a stored profile may leave one out). */
const withDefaults = (config: Readonly<RentalRequirementsConfig>): RentalRequirementsConfig => ({
  ...config,
  start: [...(config.start ?? [])],
  end: [...(config.end ?? [])],
});

/** One requirement's outcome; `skipped` says why a requirement passed without being checked. */
export interface RequirementResult<N extends string = string> {
  name: N;
  passed: boolean;
  code?: string;
  message?: string;
  skipped?: string;
}

export interface RequirementsEvaluation<N extends string = string> {
  passed: boolean;
  requirements: RequirementResult<N>[];
}

const pass = <N extends string>(name: N, skipped?: string): RequirementResult<N> =>
  skipped === undefined ? { name, passed: true } : { name, passed: true, skipped };
const fail = <N extends string>(name: N, code: string, message: string): RequirementResult<N> => ({
  name,
  passed: false,
  code,
  message,
});

const evaluation = <N extends string>(requirements: RequirementResult<N>[]): RequirementsEvaluation<N> => ({
  passed: requirements.every((requirement) => requirement.passed),
  requirements,
});

// ---------------------------------------------------------------------------------------------------
// Start requirements

/** A payment source as the start requirements see it. */
export interface PaymentSourceFact {
  type: 'CARD' | 'SEPA' | 'PAYPAL';
}

/** Payment source types a pre-authorization can be placed on (a SEPA mandate holds no funds). */
export const preAuthorizableSourceTypes: readonly PaymentSourceFact['type'][] = ['CARD', 'PAYPAL'];

/** The business account a rental is for, as the start requirements see it. */
export interface BusinessAccountFact {
  groupId: number;
  /** Whether the customer is an ACTIVE member of it. */
  member: boolean;
  checkRentalRequirements: boolean;
  shouldIgnoreBCategoryRentalRequirement: boolean;
  skipPreAuth: boolean;
  paymentState: string;
  paymentSources: readonly PaymentSourceFact[];
}

/** A payer (a customer, or the business account that pays for its members) as readiness sees it. */
export interface PayerFact {
  paymentState: string;
  paymentSources: readonly PaymentSourceFact[];
}

/**
 * Payer readiness, the one rule every charge asks before it writes anything (the start requirement
 * PAYMENT_METHOD, and every purchase: db/payer-readiness.ts): a payment source, or a payer invoiced by
 * transfer (paymentState INVOICING). P104 otherwise.
 */
export function payerCanBeCharged(payer: PayerFact): boolean {
  return payer.paymentSources.length > 0 || payer.paymentState === 'INVOICING';
}

/** What the start requirements look at. */
export interface StartFacts {
  /** Instant the rental would start (booking start when given): ages are counted at it. */
  at: Date;
  customer: {
    isBlocked: boolean;
    emailIsVerified: boolean;
    phoneIsVerified: boolean;
    licenseVerificationState: VerificationState;
    idVerificationState: VerificationState;
    manualVerificationState: VerificationState;
    customExternalVerificationState: VerificationState;
    /** `YYYY-MM-DD`. */
    birthDate?: string | null;
    /** Driving licence categories from the licence verification; null when not known. */
    drivingLicenseCategories?: readonly string[] | null;
    skipPreAuth: boolean;
    paymentState: string;
  };
  termsState: TermsAcceptanceState;
  paymentSources: readonly PaymentSourceFact[];
  /** Whether the customer holds rental authority on the branch (or an ancestor). */
  rentalAuthority: boolean;
  /** The business account named for the rental; null for a private rental. */
  businessAccount: BusinessAccountFact | null;
}

/** Verification states that count as verified (VERIFIED_BUT_NEEDS_CHECK is verified, checked later). */
export const verifiedStates: readonly VerificationState[] = ['VERIFIED', 'VERIFIED_BUT_NEEDS_CHECK'];

/** Requirements a business account with `checkRentalRequirements: false` vouches for on its members. */
export const requirementsVouchedByBusinessAccount: readonly StartRequirementName[] = [
  'EMAIL_VERIFIED',
  'PHONE_VERIFIED',
  'LICENSE_VERIFIED',
  'ID_VERIFIED',
  'MANUAL_VERIFIED',
  'CUSTOM_EXTERNAL_VERIFIED',
  'MINIMUM_AGE',
  'MAXIMUM_AGE',
  'LICENSE_CATEGORY',
];

/** Full years between a `YYYY-MM-DD` birth date and an instant (UTC calendar). */
export function ageAt(birthDate: string, at: Date): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  let age = at.getUTCFullYear() - year;
  const beforeBirthday =
    at.getUTCMonth() + 1 < month || (at.getUTCMonth() + 1 === month && at.getUTCDate() < day);
  if (beforeBirthday) age -= 1;
  return age;
}

/**
 * Evaluates the configured start requirements, in the configuration's order. A business account with
 * `checkRentalRequirements: false` vouches for its members' verification, age and licence; one with
 * `shouldIgnoreBCategoryRentalRequirement` drops the B category from LICENSE_CATEGORY; `skipPreAuth`
 * on the customer or the account skips PAYMENT_PRE_AUTHORIZATION. Business rentals are paid by the
 * account, so PAYMENT_METHOD and the pre-authorization look at its payment sources.
 */
export function evaluateStartRequirements(
  config: RentalRequirementsConfig,
  facts: StartFacts,
): RequirementsEvaluation<StartRequirementName> {
  const { customer } = facts;
  const business = facts.businessAccount?.member ? facts.businessAccount : null;
  const vouched = business && !business.checkRentalRequirements;
  const verified = (name: StartRequirementName, ok: boolean, what: string) =>
    ok ? pass(name) : fail(name, startRequirementCodes[name], `${what} is not verified`);
  const results = config.start.map((name): RequirementResult<StartRequirementName> => {
    if (vouched && requirementsVouchedByBusinessAccount.includes(name))
      return pass(name, 'the business account does not check rental requirements of its members');
    switch (name) {
      case 'ACCOUNT_NOT_BLOCKED':
        return customer.isBlocked ? fail(name, 'U131', 'the account is blocked') : pass(name);
      case 'EMAIL_VERIFIED':
        return verified(name, customer.emailIsVerified, 'the e-mail address');
      case 'PHONE_VERIFIED':
        return verified(name, customer.phoneIsVerified, 'the phone number');
      case 'LICENSE_VERIFIED':
        return verified(
          name,
          verifiedStates.includes(customer.licenseVerificationState),
          'the driving licence',
        );
      case 'ID_VERIFIED':
        return verified(name, verifiedStates.includes(customer.idVerificationState), 'the ID document');
      case 'MANUAL_VERIFIED':
        return verified(
          name,
          verifiedStates.includes(customer.manualVerificationState),
          'the account (manual check)',
        );
      case 'CUSTOM_EXTERNAL_VERIFIED':
        return verified(
          name,
          verifiedStates.includes(customer.customExternalVerificationState),
          'the external verification',
        );
      case 'TERMS_ACCEPTED':
        if (facts.termsState === 'NOT_ACCEPTED')
          return fail(name, 'U601', 'accept the terms and conditions first');
        if (facts.termsState === 'OUTDATED')
          return fail(name, 'U602', 'the terms and conditions were updated; accept the new version');
        return pass(name);
      case 'PAYMENT_METHOD': {
        const payer = business ?? {
          paymentState: customer.paymentState,
          paymentSources: facts.paymentSources,
        };
        return payerCanBeCharged(payer)
          ? pass(name)
          : fail(
              name,
              'P104',
              business ? 'the business account has no payment method' : 'add a payment method first',
            );
      }
      case 'PAYMENT_PRE_AUTHORIZATION': {
        if (customer.skipPreAuth) return pass(name, 'skipPreAuth is set on the customer');
        if (business?.skipPreAuth) return pass(name, 'skipPreAuth is set on the business account');
        const sources = business ? business.paymentSources : facts.paymentSources;
        return sources.some((source) => preAuthorizableSourceTypes.includes(source.type))
          ? pass(name)
          : fail(name, 'RQ107', 'no payment method that can be pre-authorized (a card or PayPal is needed)');
      }
      case 'RENTAL_AUTHORITY':
        return facts.rentalAuthority
          ? pass(name)
          : fail(name, 'RQ108', 'the customer holds no rental authority for this branch');
      case 'MINIMUM_AGE':
      case 'MAXIMUM_AGE': {
        const age = customer.birthDate ? ageAt(customer.birthDate, facts.at) : undefined;
        if (age === undefined) return fail(name, 'U130.7', 'the birth date is needed to check the age');
        if (name === 'MINIMUM_AGE' && age < (config.minimumAge ?? 0))
          return fail(name, 'U132', `the minimum age is ${config.minimumAge}`);
        if (name === 'MAXIMUM_AGE' && config.maximumAge !== undefined && age > config.maximumAge)
          return fail(name, 'U133', `the maximum age is ${config.maximumAge}`);
        return pass(name);
      }
      case 'LICENSE_CATEGORY': {
        let required = config.licenseCategories ?? [];
        if (business?.shouldIgnoreBCategoryRentalRequirement)
          required = required.filter((category) => category.toUpperCase() !== 'B');
        if (required.length === 0)
          return pass(name, 'the business account ignores the B licence category requirement');
        const held = (customer.drivingLicenseCategories ?? []).map((category) => category.toUpperCase());
        return required.some((category) => held.includes(category.toUpperCase()))
          ? pass(name)
          : fail(name, 'RQ109', `a driving licence of category ${required.join(' or ')} is needed`);
      }
      case 'BUSINESS_ACCOUNT':
        if (facts.businessAccount && !facts.businessAccount.member)
          return fail(name, 'U144', 'the customer is not an active member of this business account');
        return business
          ? pass(name)
          : fail(name, 'RQ110', 'rentals here need a business account: choose one');
    }
  });
  return evaluation(results);
}

/** DomainError with the first failure's code, the evaluation in `details.requirements`. */
export function assertRequirementsPassed(
  evaluated: RequirementsEvaluation,
  extra: Record<string, unknown> = {},
): void {
  const failed = evaluated.requirements.find((requirement) => !requirement.passed);
  if (!failed) return;
  throw new DomainError(
    (failed.code ?? 'RQ100') as ErrorCodeLike,
    `${failed.name}: ${failed.message ?? 'requirement not met'}`,
    { ...extra, requirements: evaluated.requirements },
  );
}

// ---------------------------------------------------------------------------------------------------
// End requirements

/** A station's catchment: its drawn area, else a radius around its position. */
export interface StationCatchment {
  id: number;
  position: LatLng;
  radiusMeters?: number | null;
  area?: GeofenceGeometry | null;
}

/** Whether a position lies in a station's catchment (the area wins over the radius; neither: no). */
export function stationContains(station: StationCatchment, position: LatLng): boolean {
  if (station.area) return geofenceContains(station.area, position);
  if (!station.radiusMeters) return false;
  const meters =
    distance([station.position.lng, station.position.lat], [position.lng, position.lat], {
      units: 'kilometers',
    }) * 1000;
  return meters <= station.radiusMeters;
}

/** What the end requirements look at: the vehicle's last reported state and the end branch's areas. */
export interface EndFacts {
  at: Date;
  vehicleCategoryId: number;
  vehiclePosition: LatLng | null;
  /** The user's (device's) position, when the app sent it. */
  userPosition: LatLng | null;
  /** The areas of the branch the rental would end in (its own, or a compatible branch's). */
  areas: PreparedAreas;
  /** Time zone of that branch, for policy schedules. */
  timeZoneId?: string;
  /** The branch's other vehicles, for capacity policies. */
  otherVehicles?: readonly VehicleSnapshot[];
  /** Active return stations (VIRTUAL, DOCKING) of that branch. */
  stations: readonly StationCatchment[];
  /** Whether a physical station slot holds the vehicle (docking state). */
  dockedInStation: boolean;
  charging: boolean;
  powerState: PowerState;
  sensors: VehicleSensors;
  /** The sensors at START (`rental.startVehicleSensors`); null when not recorded. */
  startSensors: VehicleSensors | null;
}

/** What the areas say of ending at a position: inside an allowed end area, inside a no-end area. */
export interface EndAreaVerdict {
  inAllowedEndArea: boolean;
  /** Inside an ALLOW_END_RENTAL area in force (not merely on a branch without allowing areas). */
  inAllowingArea: boolean;
  inProhibitedArea: boolean;
  capacityReached: boolean;
  /** Whether ending is allowed there at all (geofenceVerdict's answer). */
  endAllowed: boolean;
  areaIds: string[];
}

/**
 * The end-area verdict at a position for a category: "allowed" means inside an ALLOW_END_RENTAL area in
 * force, or anywhere when the branch has none for the category (geofence rules); "prohibited" means
 * inside a NO_END_RENTAL area in force.
 */
export function endAreaVerdict(
  areas: PreparedAreas,
  query: {
    position: LatLng;
    vehicleCategoryId: number;
    at: Date;
    timeZoneId?: string;
    otherVehicles?: readonly VehicleSnapshot[];
  },
): EndAreaVerdict {
  const verdict = geofenceVerdict(areas, query);
  const local = localWeekdayAndMinute(query.at, query.timeZoneId ?? 'UTC');
  const inAllowing = areasAt(areas, query.position).some(
    (area) =>
      (area.vehicleTypeIds.length === 0 || area.vehicleTypeIds.includes(query.vehicleCategoryId)) &&
      area.policies.some(
        (policy) => policy.type === 'ALLOW_END_RENTAL_POLICY' && scheduleInForce(policy.schedule, local),
      ),
  );
  return {
    inAllowedEndArea: inAllowing || !endRentalRestricted(areas, query.vehicleCategoryId),
    inAllowingArea: inAllowing,
    inProhibitedArea: verdict.endRental.refusal === 'NO_END_RENTAL_AREA',
    capacityReached: verdict.endRental.refusal === 'CAPACITY_REACHED',
    endAllowed: verdict.endRental.allowed,
    areaIds: verdict.areaIds,
  };
}

/**
 * Evaluates the configured end requirements, in the configuration's order. A sensor value the vehicle
 * never reported (or a position that is not known) cannot prove a requirement: it fails when configured.
 */
export function evaluateEndRequirements(
  config: RentalRequirementsConfig,
  facts: EndFacts,
): RequirementsEvaluation<EndRequirementName> {
  const verdictAt = (position: LatLng | null) =>
    position
      ? endAreaVerdict(facts.areas, {
          position,
          vehicleCategoryId: facts.vehicleCategoryId,
          at: facts.at,
          ...(facts.timeZoneId ? { timeZoneId: facts.timeZoneId } : {}),
          ...(facts.otherVehicles ? { otherVehicles: facts.otherVehicles } : {}),
        })
      : null;
  let vehicleVerdict: EndAreaVerdict | null | undefined;
  let userVerdict: EndAreaVerdict | null | undefined;
  const vehicleArea = () =>
    vehicleVerdict === undefined ? (vehicleVerdict = verdictAt(facts.vehiclePosition)) : vehicleVerdict;
  const userArea = () =>
    userVerdict === undefined ? (userVerdict = verdictAt(facts.userPosition)) : userVerdict;
  const { sensors } = facts;
  const sensor = (name: EndRequirementName, value: boolean | undefined, failure: string, unknown: string) =>
    value === undefined
      ? fail(name, endRequirementCodes[name], unknown)
      : value
        ? pass(name)
        : fail(name, endRequirementCodes[name], failure);
  const existing = (
    name: EndRequirementName,
    key: 'helmetsPluggedIn' | 'rfidCardsInHolder',
    what: string,
  ) => {
    const atStart = facts.startSensors?.[key];
    const now = sensors[key];
    if (atStart === undefined)
      return fail(name, endRequirementCodes[name], `the ${what} at the start are not known`);
    if (now === undefined)
      return fail(name, endRequirementCodes[name], `the vehicle does not report its ${what}`);
    return now >= atStart
      ? pass(name)
      : fail(
          name,
          endRequirementCodes[name],
          `${atStart - now} of the ${what} present at the start are missing`,
        );
  };
  const results = config.end.map((name): RequirementResult<EndRequirementName> => {
    const code = endRequirementCodes[name];
    switch (name) {
      case 'IN_BUSINESS_AREA':
      case 'USER_IN_BUSINESS_AREA': {
        const who = name === 'IN_BUSINESS_AREA' ? 'vehicle' : 'user';
        const verdict = who === 'vehicle' ? vehicleArea() : userArea();
        if (!verdict) return fail(name, code, `the ${who}'s position is not known`);
        if (!verdict.inAllowedEndArea) return fail(name, code, `the ${who} is outside the business area`);
        if (verdict.capacityReached) return fail(name, code, 'the end area at this position is full');
        return pass(name);
      }
      case 'NOT_IN_PROHIBITED_AREA':
      case 'USER_NOT_IN_PROHIBITED_AREA': {
        const who = name === 'NOT_IN_PROHIBITED_AREA' ? 'vehicle' : 'user';
        const verdict = who === 'vehicle' ? vehicleArea() : userArea();
        if (!verdict) return fail(name, code, `the ${who}'s position is not known`);
        return verdict.inProhibitedArea
          ? fail(name, code, `the ${who} is in an area where rentals may not end`)
          : pass(name);
      }
      case 'VEHICLE_IN_STATION_AREA': {
        const position = facts.vehiclePosition;
        if (!position) return fail(name, code, "the vehicle's position is not known");
        return facts.stations.some((station) => stationContains(station, position))
          ? pass(name)
          : fail(name, code, 'the vehicle is not in a station area');
      }
      case 'VEHICLE_LOCKED_IN_STATION':
        return facts.dockedInStation || sensors.lockedInStation === true
          ? pass(name)
          : fail(name, code, 'the vehicle is not docked and locked in a station');
      case 'IS_CHARGING':
        return facts.charging ? pass(name) : fail(name, code, 'the vehicle is not plugged in');
      case 'TAILBOX_CLOSED':
        return sensor(
          name,
          sensors.tailboxClosed,
          'the tailbox is open',
          'the vehicle does not report its tailbox',
        );
      case 'HELMETS_PLUGGED_IN': {
        const needed = config.minimumHelmets ?? 1;
        if (sensors.helmetsPluggedIn === undefined)
          return fail(name, code, 'the vehicle does not report its helmets');
        return sensors.helmetsPluggedIn >= needed
          ? pass(name)
          : fail(name, code, `${needed} helmet(s) must be plugged in; ${sensors.helmetsPluggedIn} are`);
      }
      case 'EXISTING_HELMETS_PLUGGED_IN':
        return existing(name, 'helmetsPluggedIn', 'helmets');
      case 'EXISTING_RFID_CARD_HOLDER_CARDS_RETURNED':
        return existing(name, 'rfidCardsInHolder', 'RFID cards');
      case 'BIKE_LOCK_LOCKED':
        return sensor(
          name,
          sensors.bikeLockLocked,
          'the bike lock is still open',
          'the vehicle does not report its bike lock',
        );
      case 'POWER_STATE_OFF':
        if (facts.powerState === 'UNKNOWN') return fail(name, code, "the vehicle's power state is not known");
        return facts.powerState === 'OFF' ? pass(name) : fail(name, code, 'the vehicle is still powered on');
      case 'STATUS_TURNED_OFF':
        return sensor(
          name,
          sensors.statusTurnedOff,
          'the vehicle did not turn off after the stop command',
          'the vehicle does not report its status after the stop command',
        );
      case 'DOORS_CLOSED':
        return sensor(name, sensors.doorsClosed, 'a door is open', 'the vehicle does not report its doors');
      case 'KEY_IN_HOLDER':
        return sensor(
          name,
          sensors.keyInHolder,
          'the key is not in its holder',
          'the vehicle does not report its key holder',
        );
      case 'PARK_BRAKE_ON':
        return sensor(
          name,
          sensors.parkBrakeOn,
          'the parking brake is not engaged',
          'the vehicle does not report its parking brake',
        );
    }
  });
  return evaluation(results);
}

/**
 * The end evaluation with operator overrides applied: an overridden failed requirement counts as passed
 * (`skipped` says so), so END proceeds; the names overridden are returned for the rental's record.
 */
export function applyEndOverrides(
  evaluated: RequirementsEvaluation<EndRequirementName>,
  override: boolean,
): { evaluation: RequirementsEvaluation<EndRequirementName>; overridden: EndRequirementName[] } {
  if (!override) return { evaluation: evaluated, overridden: [] };
  const overridden = evaluated.requirements.filter((r) => !r.passed).map((r) => r.name);
  return {
    evaluation: evaluation(
      evaluated.requirements.map((r) =>
        r.passed
          ? r
          : {
              ...r,
              passed: true,
              skipped: `overridden by an operator (${r.code ?? ''} ${r.message ?? ''})`.trim(),
            },
      ),
    ),
    overridden,
  };
}
