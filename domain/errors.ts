// Error catalogue (pure: no I/O, no Node built-ins; imported by Temporal workflow code too).
//
// Codes come from the spec's error catalogue (source 'spec') plus a few codes this project defines for
// failures the spec's tables do not show (source 'project'); see docs/errors.md. Meanings and the Retry
// column are the spec's. The spec gives no HTTP statuses, so they are assigned by this rule:
//   400 malformed or invalid request input (format, missing/contradictory fields, validation)
//   401 authentication failed: credentials, one-time codes or tokens missing/invalid/expired
//   403 authorization and access refused (scope, permissions, ownership, blocked/locked users)
//   404 a referenced entity does not exist (…404, U106, VA100, W101, …)
//   409 conflict with current state: "already", "exists", "in use", state transitions, in-progress work
//   413 payload too large; 405/415 route method / media type (project 00XX codes)
//   422 valid request refused by a business rule (eligibility, limits, location, unmet preconditions)
//   429 rate limited (RL100, AUTH225, RO102)
//   500 internal or processing failure ("failed", "internal", "error"), retryable per the spec
//   502 the vehicle failed or refused to communicate (R170, R173, R174, V502); 504 vehicle timeout (V504)
//   503 temporarily unavailable, retry later (0007, AUTH227, RO101); 410 retired integration (V410)

export interface CatalogueEntry {
  code: string;
  meaning: string;
  retryable: boolean;
  httpStatus: number;
  source: 'spec' | 'project';
}

// One line per code; keep the table layout.
// prettier-ignore
export const errorCatalogue = {
  // Generic request codes (00XX)
  '0001': { code: '0001', meaning: 'full authentication required (token absent or expired)', retryable: false, httpStatus: 401, source: 'spec' },
  '0005': { code: '0005', meaning: 'token lacks scope for this interface', retryable: false, httpStatus: 403, source: 'spec' },
  '0007': { code: '0007', meaning: 'authorization could not be established', retryable: true, httpStatus: 503, source: 'spec' },
  '0011': { code: '0011', meaning: 'generic request failure (covers two unrelated failures; details not shown in spec)', retryable: false, httpStatus: 400, source: 'spec' },
  '0012': { code: '0012', meaning: 'generic request failure (covers two unrelated failures; details not shown in spec)', retryable: false, httpStatus: 400, source: 'spec' },
  '0022': { code: '0022', meaning: 'request parameters or body failed validation', retryable: false, httpStatus: 400, source: 'spec' },
  // Authentication and authorization
  'AUTH001': { code: 'AUTH001', meaning: 'unreadable message; body must be valid JSON', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH002': { code: 'AUTH002', meaning: 'access denied', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH003': { code: 'AUTH003', meaning: 'internal error', retryable: true, httpStatus: 500, source: 'spec' },
  'AUTH004': { code: 'AUTH004', meaning: 'private-key construction error', retryable: false, httpStatus: 500, source: 'spec' },
  'AUTH005': { code: 'AUTH005', meaning: 'invalid bearer token', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH051': { code: 'AUTH051', meaning: 'tenant does not exist', retryable: false, httpStatus: 404, source: 'spec' },
  'AUTH052': { code: 'AUTH052', meaning: 'user does not exist', retryable: false, httpStatus: 404, source: 'spec' },
  'AUTH053': { code: 'AUTH053', meaning: 'tenant may only manage users created by its own API client', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH101': { code: 'AUTH101', meaning: 'email/password mismatch', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH102': { code: 'AUTH102', meaning: 'phone/SMS code mismatch', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH103': { code: 'AUTH103', meaning: 'SMS code expired', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH104': { code: 'AUTH104', meaning: 'refresh token expired; sign in again', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH105': { code: 'AUTH105', meaning: 'unknown password-reset code', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH106': { code: 'AUTH106', meaning: 'password-reset code expired', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH107': { code: 'AUTH107', meaning: 'bad phone format (international format needed)', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH108': { code: 'AUTH108', meaning: 'user temporarily blocked', retryable: true, httpStatus: 403, source: 'spec' },
  'AUTH109': { code: 'AUTH109', meaning: 'user temporarily blocked', retryable: true, httpStatus: 403, source: 'spec' },
  'AUTH110': { code: 'AUTH110', meaning: 'rejected after repeated phone sign-in failures', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH111': { code: 'AUTH111', meaning: 'rejected after repeated email sign-in failures', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH112': { code: 'AUTH112', meaning: 'blocked from email sign-in', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH113': { code: 'AUTH113', meaning: 'blocked from phone sign-in', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH114': { code: 'AUTH114', meaning: 'email sign-in method not enabled for user', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH115': { code: 'AUTH115', meaning: 'phone sign-in method not enabled for user', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH116': { code: 'AUTH116', meaning: 'social sign-in method not enabled for user', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH119': { code: 'AUTH119', meaning: 'email code mismatch', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH121': { code: 'AUTH121', meaning: 'email-code sign-in blocked after repeated failures', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH122': { code: 'AUTH122', meaning: 'email code expired', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH201': { code: 'AUTH201', meaning: 'email in use', retryable: false, httpStatus: 409, source: 'spec' },
  'AUTH202': { code: 'AUTH202', meaning: 'no user with that email', retryable: false, httpStatus: 404, source: 'spec' },
  'AUTH203': { code: 'AUTH203', meaning: 'SMS code still valid', retryable: false, httpStatus: 429, source: 'spec' },
  'AUTH204': { code: 'AUTH204', meaning: 'social login already in use', retryable: false, httpStatus: 409, source: 'spec' },
  'AUTH205': { code: 'AUTH205', meaning: 'social login invalid', retryable: false, httpStatus: 401, source: 'spec' },
  'AUTH206': { code: 'AUTH206', meaning: 'phone in use', retryable: false, httpStatus: 409, source: 'spec' },
  'AUTH207': { code: 'AUTH207', meaning: 'email mismatch', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH208': { code: 'AUTH208', meaning: 'multiple sign-in methods forbidden', retryable: false, httpStatus: 422, source: 'spec' },
  'AUTH209': { code: 'AUTH209', meaning: 'social login type unsupported', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH210': { code: 'AUTH210', meaning: 'API client does not exist', retryable: false, httpStatus: 404, source: 'spec' },
  'AUTH212': { code: 'AUTH212', meaning: 'phone number not set', retryable: false, httpStatus: 422, source: 'spec' },
  'AUTH213': { code: 'AUTH213', meaning: 'email mismatch', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH214': { code: 'AUTH214', meaning: 'email sign-in method already added', retryable: false, httpStatus: 409, source: 'spec' },
  'AUTH215': { code: 'AUTH215', meaning: 'phone sign-in method already added', retryable: false, httpStatus: 409, source: 'spec' },
  'AUTH216': { code: 'AUTH216', meaning: 'sign-in method not enabled', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH217': { code: 'AUTH217', meaning: 'unknown scope', retryable: false, httpStatus: 400, source: 'spec' },
  'AUTH218': { code: 'AUTH218', meaning: 'no email sign-in method', retryable: false, httpStatus: 422, source: 'spec' },
  'AUTH222': { code: 'AUTH222', meaning: 'user blocked', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTH225': { code: 'AUTH225', meaning: 'email code sent recently; wait a few minutes', retryable: true, httpStatus: 429, source: 'spec' },
  'AUTH227': { code: 'AUTH227', meaning: 'sign-in temporarily disabled by tenant', retryable: true, httpStatus: 503, source: 'spec' },
  'A201': { code: 'A201', meaning: 'user creation failed', retryable: true, httpStatus: 500, source: 'spec' },
  'A202': { code: 'A202', meaning: 'email change failed', retryable: true, httpStatus: 500, source: 'spec' },
  'A205': { code: 'A205', meaning: 'user deletion failed', retryable: false, httpStatus: 500, source: 'spec' },
  'A207': { code: 'A207', meaning: 'SMS sending error', retryable: true, httpStatus: 500, source: 'spec' },
  'A208': { code: 'A208', meaning: 'authentication ids mismatch', retryable: false, httpStatus: 409, source: 'spec' },
  'A209': { code: 'A209', meaning: 'verification link creation failed', retryable: true, httpStatus: 500, source: 'spec' },
  'A210': { code: 'A210', meaning: 'verification failed', retryable: true, httpStatus: 500, source: 'spec' },
  'A211': { code: 'A211', meaning: 'SMS code issue failed', retryable: true, httpStatus: 500, source: 'spec' },
  'A212': { code: 'A212', meaning: 'phone change failed, or refresh tokens unreadable (ambiguous; see endpoint called)', retryable: false, httpStatus: 500, source: 'spec' },
  'A213': { code: 'A213', meaning: 'refresh token invalidation failed', retryable: false, httpStatus: 500, source: 'spec' },
  'A214': { code: 'A214', meaning: 'API client creation failed', retryable: false, httpStatus: 500, source: 'spec' },
  'A216': { code: 'A216', meaning: 'phone number blocked', retryable: false, httpStatus: 403, source: 'spec' },
  'A219': { code: 'A219', meaning: 'email code issue failed', retryable: true, httpStatus: 500, source: 'spec' },
  'AUTHZ018': { code: 'AUTHZ018', meaning: 'authorization service denied', retryable: false, httpStatus: 403, source: 'spec' },
  'AUTHZ019': { code: 'AUTHZ019', meaning: 'bulk permission update rejected', retryable: false, httpStatus: 403, source: 'spec' },
  'JWT006': { code: 'JWT006', meaning: 'Authorization header missing', retryable: false, httpStatus: 401, source: 'spec' },
  'RL100': { code: 'RL100', meaning: 'rate limit reached after 3 failed attempts; wait 120 seconds', retryable: true, httpStatus: 429, source: 'spec' },
  // Common codes of otherwise unshown tables (U6XX terms, R, P, V)
  'U601': { code: 'U601', meaning: 'terms not accepted; fetch terms', retryable: false, httpStatus: 422, source: 'spec' },
  'U602': { code: 'U602', meaning: 'terms updated', retryable: false, httpStatus: 422, source: 'spec' },
  'R102': { code: 'R102', meaning: 'user already has an active rental', retryable: false, httpStatus: 409, source: 'spec' },
  'R131': { code: 'R131', meaning: 'ending outside business area', retryable: false, httpStatus: 422, source: 'spec' },
  'R148': { code: 'R148', meaning: 'bike lock still open at end', retryable: false, httpStatus: 422, source: 'spec' },
  'R170': { code: 'R170', meaning: 'reservation vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
  'R173': { code: 'R173', meaning: 'rental start vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
  'R174': { code: 'R174', meaning: 'rental end vehicle communication failure', retryable: true, httpStatus: 502, source: 'spec' },
  'P104': { code: 'P104', meaning: 'no payment method or package', retryable: false, httpStatus: 422, source: 'spec' },
  'V404': { code: 'V404', meaning: 'vehicle not found', retryable: false, httpStatus: 404, source: 'spec' },
  // Groups (document 1)
  'UG131': { code: 'UG131', meaning: 'receipts instead of invoices require billing cycle PAY_AS_YOU_GO (USER_GROUP_RECEIPTS_INCOMPATIBLE)', retryable: false, httpStatus: 422, source: 'spec' },
  'UG132': { code: 'UG132', meaning: 'maximum number of memberships of the business account reached', retryable: false, httpStatus: 422, source: 'project' },
  'UG133': { code: 'UG133', meaning: 'the customer already belongs to (or asked to join) a business account', retryable: false, httpStatus: 409, source: 'project' },
  'UG404': { code: 'UG404', meaning: 'business account not found', retryable: false, httpStatus: 404, source: 'project' },
  'UG405': { code: 'UG405', meaning: 'membership or join request not found', retryable: false, httpStatus: 404, source: 'project' },
  'UG406': { code: 'UG406', meaning: 'cost center not found', retryable: false, httpStatus: 404, source: 'project' },
  'UG407': { code: 'UG407', meaning: 'cost center code already used in this business account', retryable: false, httpStatus: 409, source: 'project' },
  'UG410': { code: 'UG410', meaning: 'the join code is taken by another business account', retryable: false, httpStatus: 409, source: 'project' },
  'SK404': { code: 'SK404', meaning: 'app signing key not found', retryable: false, httpStatus: 404, source: 'project' },
  'SK409': { code: 'SK409', meaning: 'the app has a signing key already; rotate it instead', retryable: false, httpStatus: 409, source: 'project' },
  'SK422': { code: 'SK422', meaning: 'the appId is not an API client with the front scope', retryable: false, httpStatus: 422, source: 'project' },
  'UV404': { code: 'UV404', meaning: 'verification attempt or file not found', retryable: false, httpStatus: 404, source: 'project' },
  'UV409': { code: 'UV409', meaning: 'verification not in a state that allows this (in review, already decided or verified)', retryable: false, httpStatus: 409, source: 'project' },
  'UG408': { code: 'UG408', meaning: 'a customer named in the request does not exist', retryable: false, httpStatus: 422, source: 'project' },
  'UG409': { code: 'UG409', meaning: 'the default cost center or business unit named is not valid for this business account', retryable: false, httpStatus: 422, source: 'project' },
  'U604': { code: 'U604', meaning: 'terms and conditions not found', retryable: false, httpStatus: 404, source: 'project' },
  'U605': { code: 'U605', meaning: 'terms already accepted by customers cannot change; publish a new version', retryable: false, httpStatus: 409, source: 'project' },
  // User management
  'U101': { code: 'U101', meaning: 'password breaks rules', retryable: false, httpStatus: 400, source: 'spec' },
  'U102': { code: 'U102', meaning: 'user exists', retryable: false, httpStatus: 409, source: 'spec' },
  'U104': { code: 'U104', meaning: 'user creation failed', retryable: true, httpStatus: 500, source: 'spec' },
  'U106': { code: 'U106', meaning: 'user not found', retryable: false, httpStatus: 404, source: 'spec' },
  'U107': { code: 'U107', meaning: 'cannot get active user', retryable: false, httpStatus: 404, source: 'spec' },
  'U108': { code: 'U108', meaning: 'user not active', retryable: false, httpStatus: 403, source: 'spec' },
  'U109': { code: 'U109', meaning: 'authentication method unsupported', retryable: false, httpStatus: 400, source: 'spec' },
  'U120': { code: 'U120', meaning: 'field not changeable', retryable: false, httpStatus: 400, source: 'spec' },
  'U121': { code: 'U121', meaning: 'deleted user cannot change', retryable: false, httpStatus: 409, source: 'spec' },
  'U130': { code: 'U130', meaning: 'user data incomplete', retryable: false, httpStatus: 422, source: 'spec' },
  'U131': { code: 'U131', meaning: 'account locked', retryable: false, httpStatus: 403, source: 'spec' },
  'U132': { code: 'U132', meaning: 'below minimum age', retryable: false, httpStatus: 422, source: 'spec' },
  'U133': { code: 'U133', meaning: 'above maximum age', retryable: false, httpStatus: 422, source: 'spec' },
  'U134': { code: 'U134', meaning: 'unpaid invoices', retryable: false, httpStatus: 422, source: 'spec' },
  'U135': { code: 'U135', meaning: 'street missing', retryable: false, httpStatus: 422, source: 'spec' },
  'U136': { code: 'U136', meaning: 'postcode missing', retryable: false, httpStatus: 422, source: 'spec' },
  'U137': { code: 'U137', meaning: 'city missing', retryable: false, httpStatus: 422, source: 'spec' },
  'U138': { code: 'U138', meaning: 'country missing', retryable: false, httpStatus: 422, source: 'spec' },
  'U139': { code: 'U139', meaning: 'signup package not bought', retryable: false, httpStatus: 422, source: 'spec' },
  'U140': { code: 'U140', meaning: 'email change failed', retryable: true, httpStatus: 500, source: 'spec' },
  'U141': { code: 'U141', meaning: 'email in use', retryable: false, httpStatus: 409, source: 'spec' },
  'U142': { code: 'U142', meaning: 'invalid email', retryable: false, httpStatus: 400, source: 'spec' },
  'U143': { code: 'U143', meaning: 'balance too low', retryable: false, httpStatus: 422, source: 'spec' },
  'U144': { code: 'U144', meaning: 'group not authorized', retryable: false, httpStatus: 403, source: 'spec' },
  // Balance
  'J100': { code: 'J100', meaning: 'cannot charge a positive balance', retryable: false, httpStatus: 422, source: 'spec' },
  'J101': { code: 'J101', meaning: 'settlement failed', retryable: false, httpStatus: 500, source: 'spec' },
  'J102': { code: 'J102', meaning: 'give balanceId or branchId, not both', retryable: false, httpStatus: 400, source: 'spec' },
  'J103': { code: 'J103', meaning: 'no default payment source', retryable: false, httpStatus: 422, source: 'spec' },
  'J104': { code: 'J104', meaning: 'balance is being charged', retryable: true, httpStatus: 409, source: 'spec' },
  'J105': { code: 'J105', meaning: 'give branch or vehicle, not both', retryable: false, httpStatus: 400, source: 'spec' },
  'J106': { code: 'J106', meaning: 'system-created balances are not deletable', retryable: false, httpStatus: 422, source: 'spec' },
  'J107': { code: 'J107', meaning: 'only the owner may delete the balance', retryable: false, httpStatus: 403, source: 'spec' },
  'J108': { code: 'J108', meaning: 'only unused balances are deletable', retryable: false, httpStatus: 409, source: 'spec' },
  'J109': { code: 'J109', meaning: 'only the owner may give access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
  'J110': { code: 'J110', meaning: 'only the owner may view access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
  'J111': { code: 'J111', meaning: 'only the owner may revoke access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
  'J112': { code: 'J112', meaning: 'setting default balance failed', retryable: true, httpStatus: 500, source: 'spec' },
  'J113': { code: 'J113', meaning: 'balance belongs to another billable branch', retryable: false, httpStatus: 422, source: 'spec' },
  'J404': { code: 'J404', meaning: 'no balance found', retryable: false, httpStatus: 404, source: 'spec' },
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
  'USU100': { code: 'USU100', meaning: 'user subscription not found', retryable: false, httpStatus: 404, source: 'spec' },
  'CV100': { code: 'CV100', meaning: 'constraint voucher not found', retryable: false, httpStatus: 404, source: 'spec' },
  // Access control
  'A100': { code: 'A100', meaning: 'action not allowed', retryable: false, httpStatus: 403, source: 'spec' },
  'A102': { code: 'A102', meaning: 'rental belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
  'A103': { code: 'A103', meaning: 'file access denied', retryable: false, httpStatus: 403, source: 'spec' },
  'A104': { code: 'A104', meaning: 'booking belongs to another user or client', retryable: false, httpStatus: 403, source: 'spec' },
  'A105': { code: 'A105', meaning: 'access to files linked to the rental denied', retryable: false, httpStatus: 403, source: 'spec' },
  'A106': { code: 'A106', meaning: 'access to files linked to the vehicle denied', retryable: false, httpStatus: 403, source: 'spec' },
  'A107': { code: 'A107', meaning: 'access to files linked to the user denied', retryable: false, httpStatus: 403, source: 'spec' },
  'A108': { code: 'A108', meaning: 'access to files linked to the issue denied', retryable: false, httpStatus: 403, source: 'spec' },
  // Issues, fines, files
  'F201': { code: 'F201', meaning: 'no rental, vehicle or branch given', retryable: false, httpStatus: 400, source: 'spec' },
  'F202': { code: 'F202', meaning: 'issue needs an affected user for the invoice', retryable: false, httpStatus: 422, source: 'spec' },
  'F203': { code: 'F203', meaning: 'create the invoice first', retryable: false, httpStatus: 409, source: 'spec' },
  'F204': { code: 'F204', meaning: 'deposit too small', retryable: false, httpStatus: 422, source: 'spec' },
  'F205': { code: 'F205', meaning: 'billing error', retryable: false, httpStatus: 500, source: 'spec' },
  'F207': { code: 'F207', meaning: 'only collection invoices can be set paid externally', retryable: false, httpStatus: 422, source: 'spec' },
  'F301': { code: 'F301', meaning: 'files can only be added to own comments', retryable: false, httpStatus: 403, source: 'spec' },
  'F404': { code: 'F404', meaning: 'issue not found', retryable: false, httpStatus: 404, source: 'spec' },
  'F405': { code: 'F405', meaning: 'comment not found', retryable: false, httpStatus: 404, source: 'spec' },
  'L303': { code: 'L303', meaning: 'file upload failed', retryable: true, httpStatus: 500, source: 'spec' },
  'L404': { code: 'L404', meaning: 'file not found', retryable: false, httpStatus: 404, source: 'spec' },
  'L405': { code: 'L405', meaning: 'file size is at most 2 MB', retryable: false, httpStatus: 413, source: 'spec' },
  'L406': { code: 'L406', meaning: 'content type required', retryable: false, httpStatus: 400, source: 'spec' },
  'L407': { code: 'L407', meaning: 'file already linked', retryable: false, httpStatus: 409, source: 'spec' },
  'L408': { code: 'L408', meaning: 'entity type not found', retryable: false, httpStatus: 400, source: 'spec' },
  // Other
  'SE100': { code: 'SE100', meaning: 'request-signing value missing', retryable: false, httpStatus: 400, source: 'spec' },
  'SE101': { code: 'SE101', meaning: 'invalid app or timestamp in request signature', retryable: false, httpStatus: 401, source: 'spec' },
  'SE102': { code: 'SE102', meaning: 'invalid request signature', retryable: false, httpStatus: 401, source: 'spec' },
  'N404': { code: 'N404', meaning: 'note not found', retryable: false, httpStatus: 404, source: 'spec' },
  'RO100': { code: 'RO100', meaning: 'routing not set up', retryable: false, httpStatus: 422, source: 'spec' },
  'RO101': { code: 'RO101', meaning: 'routing unavailable', retryable: true, httpStatus: 503, source: 'spec' },
  'RO102': { code: 'RO102', meaning: 'routing rate limit reached', retryable: true, httpStatus: 429, source: 'spec' },
  'RO103': { code: 'RO103', meaning: 'route optimization error', retryable: true, httpStatus: 500, source: 'spec' },
  'RR100': { code: 'RR100', meaning: 'radar not found', retryable: false, httpStatus: 404, source: 'spec' },
  'RR101': { code: 'RR101', meaning: 'an active radar exists', retryable: false, httpStatus: 409, source: 'spec' },
  'RR102': { code: 'RR102', meaning: 'maximum radar radius exceeded', retryable: false, httpStatus: 400, source: 'spec' },
  'RW100': { code: 'RW100', meaning: 'reward code in use', retryable: false, httpStatus: 409, source: 'spec' },
  'RW101': { code: 'RW101', meaning: 'reward already used', retryable: false, httpStatus: 409, source: 'spec' },
  'RW102': { code: 'RW102', meaning: 'rebate or value benefit needed', retryable: false, httpStatus: 400, source: 'spec' },
  'RW103': { code: 'RW103', meaning: 'invalid benefit combination', retryable: false, httpStatus: 400, source: 'spec' },
  'RW404': { code: 'RW404', meaning: 'reward not found', retryable: false, httpStatus: 404, source: 'spec' },
  'M101': { code: 'M101', meaning: 'message exists', retryable: false, httpStatus: 409, source: 'spec' },
  'M102': { code: 'M102', meaning: 'reserved message code', retryable: false, httpStatus: 409, source: 'spec' },
  'M404': { code: 'M404', meaning: 'message not found', retryable: false, httpStatus: 404, source: 'spec' },
  'MO100': { code: 'MO100', meaning: 'module externalId exists', retryable: false, httpStatus: 409, source: 'spec' },
  'MO101': { code: 'MO101', meaning: 'module name exists', retryable: false, httpStatus: 409, source: 'spec' },
  'MO102': { code: 'MO102', meaning: 'module ICCID exists', retryable: false, httpStatus: 409, source: 'spec' },
  'MO103': { code: 'MO103', meaning: 'module missing', retryable: false, httpStatus: 404, source: 'spec' },
  'MO104': { code: 'MO104', meaning: 'module may only move from retired to unassigned', retryable: false, httpStatus: 409, source: 'spec' },
  'MO105': { code: 'MO105', meaning: 'module externalId or module id needed', retryable: false, httpStatus: 400, source: 'spec' },
  // Project-defined: generic request handling (00XX)
  '0020': { code: '0020', meaning: 'unknown route', retryable: false, httpStatus: 404, source: 'project' },
  '0021': { code: '0021', meaning: 'method not allowed on this route', retryable: false, httpStatus: 405, source: 'project' },
  '0023': { code: '0023', meaning: 'unsupported media type', retryable: false, httpStatus: 415, source: 'project' },
  '0024': { code: '0024', meaning: 'request body too large', retryable: false, httpStatus: 413, source: 'project' },
  '0025': { code: '0025', meaning: 'request header fields too large', retryable: false, httpStatus: 431, source: 'project' },
  '0026': { code: '0026', meaning: 'malformed HTTP request', retryable: false, httpStatus: 400, source: 'project' },
  '0030': { code: '0030', meaning: 'the process of this entity is no longer running; re-read its state', retryable: false, httpStatus: 409, source: 'project' },
  '0099': { code: '0099', meaning: 'unexpected internal error', retryable: true, httpStatus: 500, source: 'project' },
  // Project-defined: entities and rental/vehicle operations
  'B404': { code: 'B404', meaning: 'branch not found', retryable: false, httpStatus: 404, source: 'project' },
  'B405': { code: 'B405', meaning: 'business unit not found', retryable: false, httpStatus: 404, source: 'project' },
  'R404': { code: 'R404', meaning: 'rental not found', retryable: false, httpStatus: 404, source: 'project' },
  'R103': { code: 'R103', meaning: 'vehicle not ready to rent', retryable: false, httpStatus: 409, source: 'project' },
  'R104': { code: 'R104', meaning: 'vehicle category not bookable, or rental not allowed for this category', retryable: false, httpStatus: 409, source: 'project' },
  'R105': { code: 'R105', meaning: 'the vehicle is not in the given branch', retryable: false, httpStatus: 422, source: 'project' },
  'R106': { code: 'R106', meaning: 'the free reservation time of the reset window is used up', retryable: false, httpStatus: 409, source: 'project' },
  'R107': { code: 'R107', meaning: 'the same vehicle cannot be rented again by this customer yet', retryable: true, httpStatus: 409, source: 'project' },
  'R201': { code: 'R201', meaning: 'operation not allowed in the rental\'s current state', retryable: false, httpStatus: 409, source: 'project' },
  'R202': { code: 'R202', meaning: 'another operation on this rental is in progress; re-read its state and retry', retryable: true, httpStatus: 409, source: 'project' },
  'R203': { code: 'R203', meaning: 'reservation cannot be renewed beyond the maximum free reservation time', retryable: false, httpStatus: 409, source: 'project' },
  'R204': { code: 'R204', meaning: 'operation disallowed for this vehicle category', retryable: false, httpStatus: 409, source: 'project' },
  'R205': { code: 'R205', meaning: 'these reservation minutes cannot be bought', retryable: false, httpStatus: 409, source: 'project' },
  'R190': { code: 'R190', meaning: 'the business account named does not exist or the customer is not its active member', retryable: false, httpStatus: 422, source: 'project' },
  'R191': { code: 'R191', meaning: 'the cost center named is not one of the business account\'s (or no business account is named)', retryable: false, httpStatus: 422, source: 'project' },
  'R192': { code: 'R192', meaning: 'this business account requires a reason for business rentals', retryable: false, httpStatus: 422, source: 'project' },
  'R210': { code: 'R210', meaning: 'the rental has already been rated', retryable: false, httpStatus: 409, source: 'project' },
  'V409': { code: 'V409', meaning: 'a command is already in progress for this vehicle', retryable: true, httpStatus: 409, source: 'project' },
  'V410': { code: 'V410', meaning: 'vehicle integration client retired', retryable: false, httpStatus: 410, source: 'project' },
  'V502': { code: 'V502', meaning: 'vehicle refused the command or reported an error', retryable: false, httpStatus: 502, source: 'project' },
  'V504': { code: 'V504', meaning: 'vehicle did not answer in time', retryable: true, httpStatus: 504, source: 'project' },
  'V100': { code: 'V100', meaning: 'a vehicle with this code exists', retryable: false, httpStatus: 409, source: 'project' },
  'V101': { code: 'V101', meaning: 'only a queued command can be cancelled', retryable: false, httpStatus: 409, source: 'project' },
  'V102': { code: 'V102', meaning: 'the vehicle category named in the body does not exist', retryable: false, httpStatus: 422, source: 'project' },
  'VC404': { code: 'VC404', meaning: 'vehicle category not found', retryable: false, httpStatus: 404, source: 'project' },
  'VC100': { code: 'VC100', meaning: 'vehicle category in use (vehicles, child categories, pricing assignments)', retryable: false, httpStatus: 409, source: 'project' },
  'VC101': { code: 'VC101', meaning: 'vehicle category name exists', retryable: false, httpStatus: 409, source: 'project' },
  'VC102': { code: 'VC102', meaning: 'invalid vehicle category configuration or parent', retryable: false, httpStatus: 400, source: 'project' },
  'VH404': { code: 'VH404', meaning: 'vehicle action, activity or composite activity not found', retryable: false, httpStatus: 404, source: 'project' },
  'DM404': { code: 'DM404', meaning: 'damage not found', retryable: false, httpStatus: 404, source: 'project' },
  'DM100': { code: 'DM100', meaning: 'the damage cannot move to that state, or a repaired or ignored damage cannot be edited', retryable: false, httpStatus: 409, source: 'project' },
  'DM101': { code: 'DM101', meaning: 'a damage needs a severity before approval and keeps it from then on', retryable: false, httpStatus: 422, source: 'project' },
  'DM102': { code: 'DM102', meaning: 'the rental named is not one of this vehicle\'s rentals', retryable: false, httpStatus: 422, source: 'project' },
  'MO106': { code: 'MO106', meaning: 'module is associated with another vehicle', retryable: false, httpStatus: 409, source: 'project' },
  'ST404': { code: 'ST404', meaning: 'setting not found', retryable: false, httpStatus: 404, source: 'project' },
  'AR404': { code: 'AR404', meaning: 'role or role assignment not found', retryable: false, httpStatus: 404, source: 'project' },
  // Project-defined: pricing (ODP* is the spec's pricing family; its code table is not shown)
  'ODP100': { code: 'ODP100', meaning: 'pricing bundle not found', retryable: false, httpStatus: 404, source: 'project' },
  'ODP101': { code: 'ODP101', meaning: 'pricing bundle version not found', retryable: false, httpStatus: 404, source: 'project' },
  'ODP102': { code: 'ODP102', meaning: 'only a draft version can be changed or published; create a new version instead', retryable: false, httpStatus: 409, source: 'project' },
  'ODP103': { code: 'ODP103', meaning: 'pricing rules invalid for this bundle type', retryable: false, httpStatus: 422, source: 'project' },
  'ODP104': { code: 'ODP104', meaning: 'no pricing assigned to this branch and vehicle category', retryable: false, httpStatus: 422, source: 'project' },
  'ODP105': { code: 'ODP105', meaning: 'effective date must be in the future and after every published version of the bundle', retryable: false, httpStatus: 422, source: 'project' },
  'ODP106': { code: 'ODP106', meaning: 'no published version of the pricing bundle applies at that time', retryable: false, httpStatus: 422, source: 'project' },
  'ODP107': { code: 'ODP107', meaning: 'pricing bundle is assigned to branches; remove the assignments first', retryable: false, httpStatus: 409, source: 'project' },
  'ODP108': { code: 'ODP108', meaning: 'pricing assignment not found', retryable: false, httpStatus: 404, source: 'project' },
  'ODP109': { code: 'ODP109', meaning: 'a pricing assignment of this type already exists for the branch and vehicle category', retryable: false, httpStatus: 409, source: 'project' },
  'ODP110': { code: 'ODP110', meaning: 'pricing bundle of another type or business unit than required', retryable: false, httpStatus: 422, source: 'project' },
  'ODP111': { code: 'ODP111', meaning: 'pricing input invalid (times, phases, distance or additions)', retryable: false, httpStatus: 422, source: 'project' },
  'ODP112': { code: 'ODP112', meaning: 'a pricing bundle with this name already exists', retryable: false, httpStatus: 409, source: 'project' },
  'ODP113': { code: 'ODP113', meaning: 'vehicle category not found', retryable: false, httpStatus: 404, source: 'project' },
  'ODP114': { code: 'ODP114', meaning: 'basedOnVersionId names no version of this pricing bundle', retryable: false, httpStatus: 422, source: 'project' },
  // Project-defined: geography (branches, business units, areas, stations, POIs)
  'B100': { code: 'B100', meaning: 'branch code exists', retryable: false, httpStatus: 409, source: 'project' },
  'B101': { code: 'B101', meaning: 'invalid branch parent (unknown, itself or one of its descendants)', retryable: false, httpStatus: 422, source: 'project' },
  'B102': { code: 'B102', meaning: 'business unit is referenced (branches, customers or other records) and cannot be deleted', retryable: false, httpStatus: 409, source: 'project' },
  'B103': { code: 'B103', meaning: 'business unit code exists', retryable: false, httpStatus: 409, source: 'project' },
  'B104': { code: 'B104', meaning: 'a branch cannot be compatible with itself', retryable: false, httpStatus: 422, source: 'project' },
  'B105': { code: 'B105', meaning: 'unknown time zone (an IANA name such as Europe/Berlin is needed)', retryable: false, httpStatus: 422, source: 'project' },
  'GF100': { code: 'GF100', meaning: 'invalid geofence (GeoJSON MultiPolygon with closed, non-crossing rings of [lng, lat] positions required)', retryable: false, httpStatus: 422, source: 'project' },
  'AREA404': { code: 'AREA404', meaning: 'area not found', retryable: false, httpStatus: 404, source: 'project' },
  'AREA100': { code: 'AREA100', meaning: 'policy type not allowed by the area type', retryable: false, httpStatus: 422, source: 'project' },
  'AREA101': { code: 'AREA101', meaning: 'invalid area policy (limits, schedule or duplicate policy type)', retryable: false, httpStatus: 422, source: 'project' },
  'AT404': { code: 'AT404', meaning: 'area type not found', retryable: false, httpStatus: 404, source: 'project' },
  'AT409': { code: 'AT409', meaning: 'area type is used by areas and cannot be deleted', retryable: false, httpStatus: 409, source: 'project' },
  'AT410': { code: 'AT410', meaning: 'area type is read-only', retryable: false, httpStatus: 409, source: 'project' },
  'AT411': { code: 'AT411', meaning: 'policy types still used by areas of this type cannot be removed', retryable: false, httpStatus: 409, source: 'project' },
  'STN404': { code: 'STN404', meaning: 'station not found', retryable: false, httpStatus: 404, source: 'project' },
  'STN100': { code: 'STN100', meaning: 'a station needs a radius or an area', retryable: false, httpStatus: 422, source: 'project' },
  'PS404': { code: 'PS404', meaning: 'physical station not found', retryable: false, httpStatus: 404, source: 'project' },
  'PS405': { code: 'PS405', meaning: 'physical station slot not found', retryable: false, httpStatus: 404, source: 'project' },
  'PS406': { code: 'PS406', meaning: 'physical station has no parking area (yet)', retryable: false, httpStatus: 409, source: 'project' },
  'PS100': { code: 'PS100', meaning: 'slot is not vacant', retryable: false, httpStatus: 409, source: 'project' },
  'PS102': { code: 'PS102', meaning: 'slot number exists at this station', retryable: false, httpStatus: 409, source: 'project' },
  'PS103': { code: 'PS103', meaning: 'slot holds a vehicle; disconnect it first', retryable: false, httpStatus: 409, source: 'project' },
  'PS104': { code: 'PS104', meaning: 'physical station already has a parking area', retryable: false, httpStatus: 409, source: 'project' },
  'PS105': { code: 'PS105', meaning: 'the vehicle belongs to another branch than the station', retryable: false, httpStatus: 422, source: 'project' },
  'PS106': { code: 'PS106', meaning: 'reserved places exceed the parking area capacity', retryable: false, httpStatus: 422, source: 'project' },
  'PS107': { code: 'PS107', meaning: 'the slot holds no such vehicle', retryable: false, httpStatus: 409, source: 'project' },
  'POI404': { code: 'POI404', meaning: 'point of interest not found', retryable: false, httpStatus: 404, source: 'project' },
  'POC404': { code: 'POC404', meaning: 'POI category not found', retryable: false, httpStatus: 404, source: 'project' },
  'POI100': { code: 'POI100', meaning: 'the POI category named in the body does not exist', retryable: false, httpStatus: 422, source: 'project' },
  'POC409': { code: 'POC409', meaning: 'POI category is used by POIs; set enabled=false instead', retryable: false, httpStatus: 409, source: 'project' },
  // Project-defined: rental billing (invoices are the spec's I* family, deposits a rental operation)
  'I404': { code: 'I404', meaning: 'invoice not found', retryable: false, httpStatus: 404, source: 'project' },
  'R250': { code: 'R250', meaning: 'the rental has no active deposit to release (none held, or already released)', retryable: false, httpStatus: 409, source: 'project' },
  // Project-defined: bookings (B3XX, S* and CD* are the spec's booking, station and cooldown families; their tables are not shown)
  'B300': { code: 'B300', meaning: 'booking not found', retryable: false, httpStatus: 404, source: 'project' },
  'B301': { code: 'B301', meaning: 'the booking window is not allowed (order, duration, lead time or advance limit)', retryable: false, httpStatus: 422, source: 'project' },
  'B302': { code: 'B302', meaning: 'no vehicle of the category is free for the window at this station', retryable: false, httpStatus: 409, source: 'project' },
  'B303': { code: 'B303', meaning: 'the vehicle is already held by another booking for an overlapping window (cooldowns included)', retryable: false, httpStatus: 409, source: 'project' },
  'B304': { code: 'B304', meaning: 'the booking\'s state does not allow this operation', retryable: false, httpStatus: 409, source: 'project' },
  'B305': { code: 'B305', meaning: 'pickup or check-in outside the pickup window', retryable: false, httpStatus: 422, source: 'project' },
  'B306': { code: 'B306', meaning: 'this booking cannot be cancelled (cancellation disabled by its pricing)', retryable: false, httpStatus: 409, source: 'project' },
  'B307': { code: 'B307', meaning: 'the booking is not awaiting approval', retryable: false, httpStatus: 409, source: 'project' },
  'B308': { code: 'B308', meaning: 'declining a booking needs a rejectionReason', retryable: false, httpStatus: 422, source: 'project' },
  'B309': { code: 'B309', meaning: 'the vehicle does not suit the booking (branch, category or service state)', retryable: false, httpStatus: 422, source: 'project' },
  'B310': { code: 'B310', meaning: 'the booking\'s configuration changed since it was made; update the booking first', retryable: false, httpStatus: 409, source: 'project' },
  'B311': { code: 'B311', meaning: 'payment is not ready: the customer has no usable payment source', retryable: false, httpStatus: 422, source: 'project' },
  'B312': { code: 'B312', meaning: 'the booking was picked up; its rental is running', retryable: false, httpStatus: 409, source: 'project' },
  'B313': { code: 'B313', meaning: 'another operation on this booking is in progress; retry after re-reading it', retryable: false, httpStatus: 409, source: 'project' },
  'B314': { code: 'B314', meaning: 'the booking cannot be extended to that time', retryable: false, httpStatus: 409, source: 'project' },
  'B315': { code: 'B315', meaning: 'the branch is not a booking station, or does not offer this category', retryable: false, httpStatus: 422, source: 'project' },
  'B316': { code: 'B316', meaning: 'ignoreTimeConstraints needs the BOOKING_IGNORE_TIME_CONSTRAINTS permission', retryable: false, httpStatus: 403, source: 'project' },
  'B317': { code: 'B317', meaning: 'the period asked is empty, too long or not a calendar date', retryable: false, httpStatus: 422, source: 'project' },
  'S100': { code: 'S100', meaning: 'station capacity exceeded (conflictType STATION_CAPACITY_EXCEEDED)', retryable: false, httpStatus: 409, source: 'project' },
  'S101': { code: 'S101', meaning: 'the station is closed at that time', retryable: false, httpStatus: 422, source: 'project' },
  'S404': { code: 'S404', meaning: 'booking station not found', retryable: false, httpStatus: 404, source: 'project' },
  'S102': { code: 'S102', meaning: 'invalid booking station configuration (opening hours)', retryable: false, httpStatus: 422, source: 'project' },
  'S103': { code: 'S103', meaning: 'the booking station still has open bookings', retryable: false, httpStatus: 409, source: 'project' },
  'CD100': { code: 'CD100', meaning: 'the window overlaps the cooldown of another booking of the vehicle', retryable: false, httpStatus: 409, source: 'project' },
  // Project-defined: rental requirements and rental authority (RQ* is not a spec prefix)
  'RQ100': { code: 'RQ100', meaning: 'the rental requirements configured for this branch are invalid; fix the rental.requirements setting', retryable: false, httpStatus: 409, source: 'project' },
  'RQ101': { code: 'RQ101', meaning: 'start requirement: e-mail address not verified', retryable: false, httpStatus: 422, source: 'project' },
  'RQ102': { code: 'RQ102', meaning: 'start requirement: phone number not verified', retryable: false, httpStatus: 422, source: 'project' },
  'RQ103': { code: 'RQ103', meaning: 'start requirement: driving licence not verified', retryable: false, httpStatus: 422, source: 'project' },
  'RQ104': { code: 'RQ104', meaning: 'start requirement: ID document not verified', retryable: false, httpStatus: 422, source: 'project' },
  'RQ105': { code: 'RQ105', meaning: 'start requirement: manual verification missing', retryable: false, httpStatus: 422, source: 'project' },
  'RQ106': { code: 'RQ106', meaning: 'start requirement: external verification missing', retryable: false, httpStatus: 422, source: 'project' },
  'RQ107': { code: 'RQ107', meaning: 'start requirement: no payment method that can be pre-authorized', retryable: false, httpStatus: 422, source: 'project' },
  'RQ108': { code: 'RQ108', meaning: 'start requirement: no rental authority for this branch', retryable: false, httpStatus: 422, source: 'project' },
  'RQ109': { code: 'RQ109', meaning: 'start requirement: driving licence category missing', retryable: false, httpStatus: 422, source: 'project' },
  'RQ110': { code: 'RQ110', meaning: 'start requirement: rentals here need a business account', retryable: false, httpStatus: 422, source: 'project' },
  'RQ201': { code: 'RQ201', meaning: 'end requirement: user outside the business area', retryable: false, httpStatus: 422, source: 'project' },
  'RQ202': { code: 'RQ202', meaning: 'end requirement: vehicle in an area where rentals may not end', retryable: false, httpStatus: 422, source: 'project' },
  'RQ203': { code: 'RQ203', meaning: 'end requirement: user in an area where rentals may not end', retryable: false, httpStatus: 422, source: 'project' },
  'RQ204': { code: 'RQ204', meaning: 'end requirement: vehicle not in a station area', retryable: false, httpStatus: 422, source: 'project' },
  'RQ205': { code: 'RQ205', meaning: 'end requirement: vehicle not docked and locked in a station', retryable: false, httpStatus: 422, source: 'project' },
  'RQ206': { code: 'RQ206', meaning: 'end requirement: vehicle not charging', retryable: false, httpStatus: 422, source: 'project' },
  'RQ207': { code: 'RQ207', meaning: 'end requirement: tailbox open', retryable: false, httpStatus: 422, source: 'project' },
  'RQ208': { code: 'RQ208', meaning: 'end requirement: helmets not plugged in', retryable: false, httpStatus: 422, source: 'project' },
  'RQ209': { code: 'RQ209', meaning: 'end requirement: helmets present at the start missing', retryable: false, httpStatus: 422, source: 'project' },
  'RQ210': { code: 'RQ210', meaning: 'end requirement: RFID cards present at the start not returned', retryable: false, httpStatus: 422, source: 'project' },
  'RQ211': { code: 'RQ211', meaning: 'end requirement: vehicle still powered on', retryable: false, httpStatus: 422, source: 'project' },
  'RQ212': { code: 'RQ212', meaning: 'end requirement: vehicle not turned off after the stop command', retryable: false, httpStatus: 422, source: 'project' },
  'RQ213': { code: 'RQ213', meaning: 'end requirement: a door is open', retryable: false, httpStatus: 422, source: 'project' },
  'RQ214': { code: 'RQ214', meaning: 'end requirement: key not in its holder', retryable: false, httpStatus: 422, source: 'project' },
  'RQ215': { code: 'RQ215', meaning: 'end requirement: parking brake not engaged', retryable: false, httpStatus: 422, source: 'project' },
  'RQ404': { code: 'RQ404', meaning: 'rental authority not found', retryable: false, httpStatus: 404, source: 'project' },
} as const satisfies Readonly<Record<string, CatalogueEntry>>;

for (const entry of Object.values(errorCatalogue)) Object.freeze(entry);
Object.freeze(errorCatalogue);

/** Every code of the catalogue (spec and project). */
export type ErrorCode = keyof typeof errorCatalogue;

// Compile-time guard: each entry's `code` equals its key.
type KeyCodeMismatch = {
  [K in ErrorCode]: (typeof errorCatalogue)[K]['code'] extends K ? never : K;
}[ErrorCode];
const catalogueKeysMatchCodes: [KeyCodeMismatch] extends [never] ? true : KeyCodeMismatch = true;
void catalogueKeysMatchCodes;

/** File-access codes that append their sub-code without a separator (A103416 = A103 + 416). */
export const appendedSubCodeBases = ['A103', 'A105', 'A106', 'A107', 'A108'] as const;

/** A catalogue code, optionally with a dotted sub-code (U130.2, A100.511) or an appended file-access sub-code. */
export type ErrorCodeLike =
  ErrorCode | `${ErrorCode}.${number}` | `${(typeof appendedSubCodeBases)[number]}${number}`;

/** Meanings of the sub-codes the spec spells out; other sub-codes only mark the failing endpoint/check. */
export const subCodeMeanings: Readonly<Record<string, string>> = Object.freeze({
  'U130.2': 'email or phone needed',
  'U130.3': 'email needed',
  'U130.4': 'phone needed',
  'U130.5': 'first name needed',
  'U130.6': 'last name needed',
  'U130.7': 'birth date needed',
  'U141.1': 'admin create',
  'U141.2': 'add email sign-in',
  'U141.3': 'own change',
});

function isCatalogued(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}

const dottedSubCode = /^([^.]+)\.\d+$/;
const appendedSubCode = /^(A10[35678])\d+$/;

/**
 * The catalogue code a (possibly suffixed) code belongs to, or undefined when unknown.
 * 'U130.2' → 'U130', 'A100.511' → 'A100', 'A103416' → 'A103'.
 */
export function baseCode(code: string): ErrorCode | undefined {
  if (isCatalogued(code)) return code;
  const base = dottedSubCode.exec(code)?.[1] ?? appendedSubCode.exec(code)?.[1];
  return base !== undefined && isCatalogued(base) ? base : undefined;
}

/** Catalogue entry for a code, falling back to the base code for sub-codes. Throws for unknown codes. */
export function catalogueEntry(code: string): CatalogueEntry {
  const base = baseCode(code);
  if (base === undefined) throw new Error(`Unknown error code: ${code}`);
  return errorCatalogue[base];
}

/** The error body of every failed API call. */
export interface ErrorBody {
  errorCode: string;
  userMessage: string;
  httpStatus: number;
  traceId: string;
  /** The vehicle's own reason when it refused or failed a command (V502). */
  failureReason?: { code?: string; description?: string };
}

/** Plain, serialisable form of a DomainError (e.g. for Temporal failure details). */
export interface DomainErrorData {
  code: string;
  message: string;
  httpStatus: number;
  retryable: boolean;
  details?: Record<string, unknown>;
}

function defaultMessage(code: string): string {
  const meaning = catalogueEntry(code).meaning;
  const sub = Object.hasOwn(subCodeMeanings, code) ? subCodeMeanings[code] : undefined;
  return sub === undefined ? meaning : `${meaning}: ${sub}`;
}

/**
 * A failure with a catalogue code. Status and retryability come from the catalogue (base code for
 * sub-codes); `code` keeps the full code as given (e.g. 'U130.2'). Only plain data fields, so it can be
 * thrown from activities and API handlers alike.
 */
export class DomainError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly retryable: boolean;
  declare readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCodeLike,
    userMessage?: string,
    details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(userMessage ?? defaultMessage(code), options);
    const entry = catalogueEntry(code);
    this.name = 'DomainError';
    this.code = code;
    this.httpStatus = entry.httpStatus;
    this.retryable = entry.retryable;
    if (details !== undefined) this.details = details;
  }

  /** The API error body. */
  toBody(traceId: string): ErrorBody {
    const body: ErrorBody = {
      errorCode: this.code,
      userMessage: this.message,
      httpStatus: this.httpStatus,
      traceId,
    };
    const reason = this.details?.failureReason;
    if (reason && typeof reason === 'object') {
      const { code, description } = reason as Record<string, unknown>;
      body.failureReason = {
        ...(typeof code === 'string' ? { code } : {}),
        ...(typeof description === 'string' ? { description } : {}),
      };
    }
    return body;
  }

  toJSON(): DomainErrorData {
    const data: DomainErrorData = {
      code: this.code,
      message: this.message,
      httpStatus: this.httpStatus,
      retryable: this.retryable,
    };
    if (this.details !== undefined) data.details = this.details;
    return data;
  }

  /** Rebuilds an error from `toJSON()` output (status and retryability re-read from the catalogue). */
  static fromJSON(data: Pick<DomainErrorData, 'code' | 'message' | 'details'>): DomainError {
    return new DomainError(data.code as ErrorCodeLike, data.message, data.details);
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
