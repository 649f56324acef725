// Validation of a pricing version's rules against its bundle type (pure).
import { DomainError } from './errors.js';
import { Money } from './price-lines.js';
import {
  isDecimal,
  type BookingRules,
  type OnDemandRules,
  type PricingBundleType,
  type PricingRules,
} from './pricing.js';

const localTimePattern = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * Refuses rules that do not fit the bundle type (ODP103): on-demand versions need a mode and on-demand
 * rules; booking versions need booking rules and must not name a free-floating mode.
 */
export function validatePricingRules(bundleType: PricingBundleType, rules: PricingRules): void {
  const problems: string[] = [];
  if (bundleType === 'BOOKING') {
    if (rules.freeFloatingPricingMode !== null)
      problems.push('freeFloatingPricingMode is not valid for booking bundles');
    if (rules.onDemand !== null) problems.push('onDemand rules are not valid for booking bundles');
    if (rules.booking === null) problems.push('booking rules are required');
    else problems.push(...bookingProblems(rules.booking));
  } else {
    if (rules.freeFloatingPricingMode === null)
      problems.push('freeFloatingPricingMode (ENDING_TIMESLOT or CUMULATIVE_TIMESLOTS) is required');
    if (rules.booking !== null) problems.push('booking rules are not valid for on-demand bundles');
    if (rules.onDemand === null) problems.push('onDemand rules are required');
    else problems.push(...onDemandProblems(rules.onDemand));
  }
  if (problems.length) throw new DomainError('ODP103', problems.join('; '), { problems });
}

function onDemandProblems(rules: OnDemandRules): string[] {
  const problems: string[] = [];
  for (const key of ['unlockFee', 'reservationPerMinute', 'distancePerUnit', 'minimumPrice'] as const)
    if (!isDecimal(rules[key])) problems.push(`${key} must be a decimal string`);
  if (!rules.timeSlots.length) problems.push('at least one time slot is required');
  rules.timeSlots.forEach((slot, index) => {
    if (!isDecimal(slot.drivingPerMinute) || !isDecimal(slot.parkingPerMinute))
      problems.push(`timeSlots[${index}] rates must be decimal strings`);
    if (index === 0 && slot.fromMinute !== 0) problems.push('the first time slot must start at minute 0');
    if (index > 0 && slot.fromMinute <= rules.timeSlots[index - 1]!.fromMinute)
      problems.push('time slots must be in ascending fromMinute order');
  });
  if (!(Number.isInteger(rules.billingIncrementMinutes) && rules.billingIncrementMinutes >= 1))
    problems.push('billingIncrementMinutes must be a positive integer');
  return problems;
}

function bookingProblems(rules: BookingRules): string[] {
  const problems: string[] = [];
  for (const key of ['hourlyRate', 'unlockFee', 'distancePerUnit'] as const)
    if (!isDecimal(rules[key])) problems.push(`${key} must be a decimal string`);
  if (rules.nightRate) {
    const { startLocalTime, endLocalTime, hourlyRate } = rules.nightRate;
    if (!localTimePattern.test(startLocalTime) || !localTimePattern.test(endLocalTime))
      problems.push('nightRate times must be HH:MM');
    else if (startLocalTime === endLocalTime) problems.push('nightRate start and end must differ');
    if (!isDecimal(hourlyRate)) problems.push('nightRate.hourlyRate must be a decimal string');
  }
  if (rules.weekendHourlyRate !== null && !isDecimal(rules.weekendHourlyRate))
    problems.push('weekendHourlyRate must be a decimal string');
  rules.adaptiveRates.forEach((tier, index) => {
    if (!isDecimal(tier.factor) || new Money(tier.factor).gt(10))
      problems.push(`adaptiveRates[${index}].factor must be a decimal string up to 10`);
  });
  const codes = rules.additions.map((addition) => addition.code);
  if (new Set(codes).size !== codes.length) problems.push('addition codes must be unique');
  rules.additions.forEach((addition, index) => {
    if (!isDecimal(addition.price)) problems.push(`additions[${index}].price must be a decimal string`);
  });
  if (!isDecimal(rules.cancellation.fee)) problems.push('cancellation.fee must be a decimal string');
  if (!isDecimal(rules.lateReturn.hourlyRate))
    problems.push('lateReturn.hourlyRate must be a decimal string');
  if (!(Number.isInteger(rules.billingIncrementMinutes) && rules.billingIncrementMinutes >= 1))
    problems.push('billingIncrementMinutes must be a positive integer');
  return problems;
}
