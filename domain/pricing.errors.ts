// Error codes of the pricing domain: pricing bundles, versions, assignments and the price engine.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The pricing domain's catalogue entries; `when` says when the project answers a code. */
export const pricingErrors = defineErrorCodes(
  'pricing',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Project-defined: pricing (ODP* is the spec's pricing family; its code table is not shown)
    'ODP100': { code: 'ODP100', meaning: 'pricing bundle not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown or archived pricingBundleId (see docs/pricing.md)' },
    'ODP101': { code: 'ODP101', meaning: 'pricing bundle version not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown version of the bundle; a draft asked for by the app' },
    'ODP102': { code: 'ODP102', meaning: 'only a draft version can be changed or published; create a new version instead', retryable: false, httpStatus: 409, source: 'project', when: 'PUT or publish on a non-DRAFT version, or a publication already under way' },
    'ODP103': { code: 'ODP103', meaning: 'pricing rules invalid for this bundle type', retryable: false, httpStatus: 422, source: 'project', when: 'mode/onDemand/booking rules missing or not allowed for the bundle type' },
    'ODP104': { code: 'ODP104', meaning: 'no pricing assigned to this branch and vehicle category', retryable: false, httpStatus: 422, source: 'project', when: 'no assignment on the branch or its ancestors' },
    'ODP105': { code: 'ODP105', meaning: 'effective date must be in the future and after every published version of the bundle', retryable: false, httpStatus: 422, source: 'project', when: 'effectiveFrom in the past or not after the other published versions; validUntil before it' },
    'ODP106': { code: 'ODP106', meaning: 'no published version of the pricing bundle applies at that time', retryable: false, httpStatus: 422, source: 'project', when: 'before the first effective date or after an expiry' },
    'ODP107': { code: 'ODP107', meaning: 'pricing bundle is assigned to branches; remove the assignments first', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE of a bundle that has assignments' },
    'ODP108': { code: 'ODP108', meaning: 'pricing assignment not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown assignmentId' },
    'ODP109': { code: 'ODP109', meaning: 'a pricing assignment of this type already exists for the branch and vehicle category', retryable: false, httpStatus: 409, source: 'project', when: 'second assignment of a type for a branch and category' },
    'ODP110': { code: 'ODP110', meaning: 'pricing bundle of another type or business unit than required', retryable: false, httpStatus: 422, source: 'project', when: 'bundle type, business unit or currency does not fit the request' },
    'ODP111': { code: 'ODP111', meaning: 'pricing input invalid (times, phases, distance or additions)', retryable: false, httpStatus: 422, source: 'project', when: 'reversed/overlapping times, more than 366 days, unknown additions, no category or bundle given' },
    'ODP112': { code: 'ODP112', meaning: 'a pricing bundle with this name already exists', retryable: false, httpStatus: 409, source: 'project', when: 'create or rename to a live bundle\'s name' },
    'ODP113': { code: 'ODP113', meaning: 'vehicle category not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown vehicleCategoryId in a pricing assignment' },
    'ODP114': { code: 'ODP114', meaning: 'basedOnVersionId names no version of this pricing bundle', retryable: false, httpStatus: 422, source: 'project', when: 'POST .../versions copying from a version of another bundle or none' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    pricing: typeof pricingErrors;
  }
}
