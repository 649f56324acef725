// Start requirements explained for operators: what blocks a rental of a vehicle category in a branch,
// for a customer and business account when given.
import { Type } from '@sinclair/typebox';
import { startRequirementsReport } from '../../../db/rental-requirements.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { DateTime, Id } from '../../kernel/schemas.js';
import {
  StartRequirementsReportSchema,
  toStartRequirementsReport,
} from '../../shared/rental-requirement-representation.js';

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
