// The app's start requirements: what the signed-in customer still needs before renting a vehicle (or a
// vehicle category in a branch); the app re-runs it after the customer chose a business account.
import { Type } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { startRequirementsReport } from '../../../db/rental-requirements.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import {
  StartRequirementsReportSchema,
  toStartRequirementsReport,
} from '../../shared/rental-requirement-representation.js';

export const myRentalRequirements = defineRoute({
  operationId: 'getMyRentalRequirements',
  method: 'get',
  path: '/rentals/requirements',
  interface: 'front',
  summary: 'Start requirements for the signed-in customer',
  description:
    'Give `vehicleId` (its branch and category apply), or `branchId` and `vehicleCategoryId`. Re-run after a business account is chosen (`userGroupId`); an account the customer is not an active member of is UG404.',
  tags: ['Rentals'],
  query: Type.Object({
    vehicleId: Type.Optional(Id()),
    branchId: Type.Optional(Id()),
    vehicleCategoryId: Type.Optional(Id()),
    userGroupId: Type.Optional(Id()),
  }),
  access: { customer: 'evaluates the requirements for the signed-in customer only' },
  responses: { 200: { description: 'The requirements', schema: StartRequirementsReportSchema } },
  errors: ['V404', 'B404', 'VC404', 'UG404', 'RQ100'],
  async handler(ctx) {
    const { em, tenant, query } = ctx;
    const customer = await ctx.customer();
    let branchId = query.branchId;
    let vehicleCategoryId = query.vehicleCategoryId;
    if (query.vehicleId !== undefined) {
      const vehicle = await em.findOne(Vehicle, query.vehicleId);
      if (!vehicle || vehicle.virtual) throw new DomainError('V404');
      if (branchId !== undefined && branchId !== vehicle.branch.id)
        throw new DomainError('0022', 'branchId is not the branch of the vehicle');
      if (vehicleCategoryId !== undefined && vehicleCategoryId !== vehicle.category.id)
        throw new DomainError('0022', 'vehicleCategoryId is not the category of the vehicle');
      branchId = vehicle.branch.id;
      vehicleCategoryId = vehicle.category.id;
    }
    if (branchId === undefined || vehicleCategoryId === undefined)
      throw new DomainError('0022', 'give vehicleId, or branchId and vehicleCategoryId');
    if (!(await em.count(Branch, branchId))) throw new DomainError('B404', `branch ${branchId} not found`);
    if (
      query.userGroupId !== undefined &&
      !(await em.count(GroupMembership, { customer: customer.id, group: query.userGroupId, state: 'ACTIVE' }))
    )
      throw new DomainError('UG404', `business account ${query.userGroupId} not found`);
    const report = await startRequirementsReport(em, tenant, {
      customerId: customer.id,
      branchId,
      vehicleCategoryId,
      at: new Date(),
      ...(query.userGroupId !== undefined ? { userGroupId: query.userGroupId } : {}),
    });
    return ok(toStartRequirementsReport(report));
  },
});

export const appRentalRequirementRoutes = [myRentalRequirements];
