// Start requirements explained for operators: what blocks a rental of a vehicle category in a branch,
// for a customer and business account when given.
import { Type, type Static } from '@sinclair/typebox';
import { startRequirementsReport, type StartRequirementsReport } from '../../../db/rental-requirements.js';
import { endRequirementNames, startRequirementNames } from '../../../domain/rental-requirements.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../../kernel/schemas.js';

export const StartRequirementName = component('StartRequirementName', StringEnum(startRequirementNames));
export const EndRequirementName = component('EndRequirementName', StringEnum(endRequirementNames));

export const StartRequirementsReportSchema = component(
  'StartRequirementsReport',
  Type.Object(
    {
      branchId: Id(),
      vehicleCategoryId: Id(),
      profile: Nullable(
        Type.String({ description: 'Profile of the rental.requirements setting that applies; null: none.' }),
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

export const startRequirements = defineRoute({
  operationId: 'getStartRentalRequirements',
  method: 'get',
  path: '/rental-requirements/start',
  interface: 'back',
  summary: 'Explain the start requirements of a branch and vehicle category',
  description:
    'Lists the configured start requirements; with `guserId` each is evaluated for that customer, with `userGroupId` in that business-account context.',
  tags: ['Rentals'],
  query: Type.Object({
    branchId: Id(),
    vehicleCategoryId: Id(),
    guserId: Type.Optional(Id({ description: 'Customer to evaluate the requirements for.' })),
    userGroupId: Type.Optional(Id({ description: 'Business account of a business rental.' })),
    bookingStartTime: Type.Optional(
      DateTime({ description: 'Ages are counted at this instant (default now).' }),
    ),
    bookingEndTime: Type.Optional(DateTime()),
  }),
  access: {
    permission: 'RENTAL_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'The requirements', schema: StartRequirementsReportSchema } },
  errors: ['VC404', 'U106', 'UG404', 'RQ100'],
  async handler({ em, tenant, query }) {
    const report = await startRequirementsReport(em, tenant, {
      branchId: query.branchId,
      vehicleCategoryId: query.vehicleCategoryId,
      at: new Date(),
      ...(query.guserId !== undefined ? { customerId: query.guserId } : {}),
      ...(query.userGroupId !== undefined ? { userGroupId: query.userGroupId } : {}),
      ...(query.bookingStartTime ? { bookingStartTime: new Date(query.bookingStartTime) } : {}),
      ...(query.bookingEndTime ? { bookingEndTime: new Date(query.bookingEndTime) } : {}),
    });
    return ok(toStartRequirementsReport(report));
  },
});

export const rentalRequirementRoutes = [startRequirements];
