// The start requirements report, which both interfaces use: the operator asks what blocks a rental of a
// category in a branch for a customer, the app what blocks the signed-in customer.
import { Type, type Static } from '@sinclair/typebox';
import type { StartRequirementsReport } from '../../db/rental-requirements.js';
import { endRequirementNames, reportedStartRequirementNames } from '../../domain/rental-requirements.js';
import { component, Id, Nullable, StringEnum } from '../kernel/schemas.js';

export const StartRequirementName = component(
  'StartRequirementName',
  StringEnum(reportedStartRequirementNames, {
    description:
      'NO_UNPAID_INVOICES is not configurable: it is checked for every customer and listed only when it fails (U134, dunning).',
  }),
);
export const EndRequirementName = component('EndRequirementName', StringEnum(endRequirementNames));

export const StartRequirementsReportSchema = component(
  'StartRequirementsReport',
  Type.Object(
    {
      branchId: Id(),
      vehicleCategoryId: Id(),
      profile: Nullable(
        Type.String({
          description:
            'Profile of the rental.requirements setting that applies; null: none (without any setting, the shipped default: PAYMENT_METHOD).',
        }),
      ),
      evaluated: Type.Boolean({
        description: 'False when no customer was given: the list shows what applies.',
      }),
      passed: Nullable(Type.Boolean()),
      requirements: Type.Array(
        Type.Object(
          {
            name: StartRequirementName,
            passed: Nullable(Type.Boolean()),
            code: Type.Optional(
              Type.String({ description: 'Catalogue code of the failure (or of a failure).' }),
            ),
            message: Type.Optional(Type.String()),
            skipped: Type.Optional(
              Type.String({ description: 'Why the requirement passed without a check.' }),
            ),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** The API form of a start requirements report. */
export const toStartRequirementsReport = (
  report: StartRequirementsReport,
): Static<typeof StartRequirementsReportSchema> => report;
