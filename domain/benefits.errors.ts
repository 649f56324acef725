// Error codes of the benefits domain: voucherables, vouchers, promotions, subscriptions, packages and rewards (the spec's codes, ahead of the benefits domain).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The benefits domain's catalogue entries; `when` says when the project answers a code. */
export const benefitErrors = defineErrorCodes(
  'benefits',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Vouchers and promotions
    'VA100': { code: 'VA100', meaning: 'voucherable not found', retryable: false, httpStatus: 404, source: 'spec' },
    'VA101': { code: 'VA101', meaning: 'invalid validity combination', retryable: false, httpStatus: 400, source: 'spec' },
    'VA102': { code: 'VA102', meaning: 'validity date in the past', retryable: false, httpStatus: 400, source: 'spec' },
    'VA103': { code: 'VA103', meaning: 'validity period or time unit missing', retryable: false, httpStatus: 400, source: 'spec' },
    'VA104': { code: 'VA104', meaning: 'all benefits null', retryable: false, httpStatus: 400, source: 'spec' },
    'VA105': { code: 'VA105', meaning: 'invalid benefit combination', retryable: false, httpStatus: 400, source: 'spec' },
    'VA106': { code: 'VA106', meaning: 'voucherable code exists', retryable: false, httpStatus: 409, source: 'spec' },
    'VA109': { code: 'VA109', meaning: 'invalid benefit configuration', retryable: false, httpStatus: 400, source: 'spec' },
    'VA111': { code: 'VA111', meaning: 'wrong voucherable type', retryable: false, httpStatus: 400, source: 'spec' },
    'VA113': { code: 'VA113', meaning: 'prohibited annotations not found', retryable: false, httpStatus: 404, source: 'spec' },
    'VA114': { code: 'VA114', meaning: 'annotation both required and prohibited', retryable: false, httpStatus: 400, source: 'spec' },
    'VA120': { code: 'VA120', meaning: 'package price invalid', retryable: false, httpStatus: 400, source: 'spec' },
    'W101': { code: 'W101', meaning: 'voucher not found', retryable: false, httpStatus: 404, source: 'spec' },
    'W103': { code: 'W103', meaning: 'voucher not valid at this location', retryable: false, httpStatus: 422, source: 'spec' },
    'W105': { code: 'W105', meaning: 'voucher already used', retryable: false, httpStatus: 409, source: 'spec' },
    'W113': { code: 'W113', meaning: 'promotion not valid at this location', retryable: false, httpStatus: 422, source: 'spec' },
    'W115': { code: 'W115', meaning: 'promotion not valid now', retryable: false, httpStatus: 422, source: 'spec' },
    'W117': { code: 'W117', meaning: 'promotion already used', retryable: false, httpStatus: 409, source: 'spec' },
    'W118': { code: 'W118', meaning: 'user not allowed', retryable: false, httpStatus: 403, source: 'spec' },
    'W120': { code: 'W120', meaning: 'verify account before using a referral code', retryable: false, httpStatus: 422, source: 'spec' },
    'W121': { code: 'W121', meaning: 'referral code used twice', retryable: false, httpStatus: 409, source: 'spec' },
    'W122': { code: 'W122', meaning: 'referral not possible with existing rentals', retryable: false, httpStatus: 422, source: 'spec' },
    'W123': { code: 'W123', meaning: 'self-referral not allowed', retryable: false, httpStatus: 422, source: 'spec' },
    'W124': { code: 'W124', meaning: 'maximum redeem limit reached', retryable: false, httpStatus: 422, source: 'spec' },
    'W125': { code: 'W125', meaning: 'signup offer already used', retryable: false, httpStatus: 409, source: 'spec' },
    'W126': { code: 'W126', meaning: 'geofence promotion cannot be redeemed manually', retryable: false, httpStatus: 422, source: 'spec' },
    'W127': { code: 'W127', meaning: 'voucher has no branch', retryable: false, httpStatus: 422, source: 'spec' },
    'W128': { code: 'W128', meaning: 'needs a successful ride', retryable: false, httpStatus: 422, source: 'spec' },
    'W129': { code: 'W129', meaning: 'initial package not allowed after a non-initial one', retryable: false, httpStatus: 422, source: 'spec' },
    'W130': { code: 'W130', meaning: 'voucher inactive', retryable: false, httpStatus: 422, source: 'spec' },
    'W131': { code: 'W131', meaning: 'referrer needs a ride', retryable: false, httpStatus: 422, source: 'spec' },
    'W132': { code: 'W132', meaning: 'invalid validity combination', retryable: false, httpStatus: 400, source: 'spec' },
    'W133': { code: 'W133', meaning: 'outside redeem window', retryable: false, httpStatus: 422, source: 'spec' },
    'W134': { code: 'W134', meaning: 'validity period or time unit missing', retryable: false, httpStatus: 400, source: 'spec' },
    'W135': { code: 'W135', meaning: 'validity date in the past', retryable: false, httpStatus: 400, source: 'spec' },
    'W136': { code: 'W136', meaning: 'referrer ineligible', retryable: false, httpStatus: 422, source: 'spec' },
    'W143': { code: 'W143', meaning: 'customer-care voucherable id missing', retryable: false, httpStatus: 400, source: 'spec' },
    'T100': { code: 'T100', meaning: 'promotion not found', retryable: false, httpStatus: 404, source: 'spec' },
    'T101': { code: 'T101', meaning: 'not allowed on a non-billable branch', retryable: false, httpStatus: 422, source: 'spec' },
    'T103': { code: 'T103', meaning: 'promotion code taken', retryable: false, httpStatus: 409, source: 'spec' },
    'T110': { code: 'T110', meaning: 'branch/code not updatable', retryable: false, httpStatus: 400, source: 'spec' },
    'T111': { code: 'T111', meaning: 'invalid times', retryable: false, httpStatus: 400, source: 'spec' },
    'T112': { code: 'T112', meaning: 'type mismatch', retryable: false, httpStatus: 400, source: 'spec' },
    'T113': { code: 'T113', meaning: 'geofence area empty', retryable: false, httpStatus: 400, source: 'spec' },
    'T114': { code: 'T114', meaning: 'geofence duration, weekdays and recurrence start required', retryable: false, httpStatus: 400, source: 'spec' },
    'T115': { code: 'T115', meaning: 'show-in-app is null', retryable: false, httpStatus: 400, source: 'spec' },
    'T116': { code: 'T116', meaning: 'invalid geofence type combination', retryable: false, httpStatus: 400, source: 'spec' },
    'AN100': { code: 'AN100', meaning: 'an annotation with this name exists', retryable: false, httpStatus: 409, source: 'project', when: 'POST /annotations or PUT /annotations/{id} with a name another annotation of the business unit and type has' },
    'AN404': { code: 'AN404', meaning: 'annotation not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown annotationId, or one of another business unit than the customer assignment names' },
    // Subscriptions
    'SU100': { code: 'SU100', meaning: 'subscription code exists', retryable: false, httpStatus: 409, source: 'spec' },
    'SU101': { code: 'SU101', meaning: 'subscription not found', retryable: false, httpStatus: 404, source: 'spec' },
    'SU102': { code: 'SU102', meaning: 'subscription has active references', retryable: false, httpStatus: 409, source: 'spec' },
    'SU103': { code: 'SU103', meaning: 'already subscribed', retryable: false, httpStatus: 409, source: 'spec' },
    'SU104': { code: 'SU104', meaning: 'not subscribed', retryable: false, httpStatus: 409, source: 'spec' },
    'SU105': { code: 'SU105', meaning: 'subscription inactive', retryable: false, httpStatus: 422, source: 'spec' },
    'SU106': { code: 'SU106', meaning: 'a benefit is required', retryable: false, httpStatus: 400, source: 'spec' },
    'SU107': { code: 'SU107', meaning: 'subscription canceled', retryable: false, httpStatus: 409, source: 'spec' },
    'SU108': { code: 'SU108', meaning: 'subscription already canceled', retryable: false, httpStatus: 409, source: 'spec' },
    'SU109': { code: 'SU109', meaning: 'internal subscription error', retryable: true, httpStatus: 500, source: 'spec' },
    'SU110': { code: 'SU110', meaning: 'invalid benefit combination', retryable: false, httpStatus: 400, source: 'spec' },
    'SU111': { code: 'SU111', meaning: 'branches must share the billable branch', retryable: false, httpStatus: 422, source: 'spec' },
    'SU112': { code: 'SU112', meaning: 'initialPrice and initialIterations must be given together', retryable: false, httpStatus: 400, source: 'spec' },
    'SU113': { code: 'SU113', meaning: 'no purchase on foreign branches', retryable: false, httpStatus: 422, source: 'spec' },
    'SU116': { code: 'SU116', meaning: 'subscription price invalid', retryable: false, httpStatus: 400, source: 'spec' },
    'SU117': { code: 'SU117', meaning: 'maximum active subscriptions reached', retryable: false, httpStatus: 422, source: 'spec' },
    'SU118': { code: 'SU118', meaning: 'a charge of the subscription is under way', retryable: true, httpStatus: 409, source: 'project', when: 'a command other than cancel or renew while the subscription awaits a charge (its purchase, a renewal, an immediate switch); DELETE during an immediate switch' },
    'SU119': { code: 'SU119', meaning: 'the subscription payment failed', retryable: false, httpStatus: 402, source: 'project', when: 'the gateway refused the purchase charge outright: the subscription is EXPIRED with auto-renewal FAILED' },
    'USU100': { code: 'USU100', meaning: 'user subscription not found', retryable: false, httpStatus: 404, source: 'spec' },
    'CV100': { code: 'CV100', meaning: 'constraint voucher not found', retryable: false, httpStatus: 404, source: 'spec' },
    // Other
    'RW100': { code: 'RW100', meaning: 'reward code in use', retryable: false, httpStatus: 409, source: 'spec' },
    'RW101': { code: 'RW101', meaning: 'reward already used', retryable: false, httpStatus: 409, source: 'spec' },
    'RW102': { code: 'RW102', meaning: 'rebate or value benefit needed', retryable: false, httpStatus: 400, source: 'spec' },
    'RW103': { code: 'RW103', meaning: 'invalid benefit combination', retryable: false, httpStatus: 400, source: 'spec' },
    'RW404': { code: 'RW404', meaning: 'reward not found', retryable: false, httpStatus: 404, source: 'spec' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    benefits: typeof benefitErrors;
  }
}
