import { Router, type Request } from 'express';
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Customer, Rental, Vehicle } from '../../../db/entities/index.js';
import { tenantEm, type EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { terminalRentalStates, type RentalState } from '../../../domain/rental.js';
import { rentalWorkflowId } from '../../../workflows/ids.js';
import {
  RENTAL_WORKFLOW_TYPE,
  awaitReservationUpdate,
  cancelReservationUpdate,
  rentalOperationUpdate,
  type RentalOperationRequest,
  type RentalWorkflowInput,
} from '../../../workflows/rental.messages.js';
import {
  BranchIdKey,
  CustomerIdKey,
  EntityStateKey,
  TenantIdKey,
  VehicleIdKey,
} from '../../../workflows/search-attributes.js';
import { RequestAuthorizer } from '../../authorization.js';
import { pathTenant, principalOf } from '../../context.js';
import { orderBy, pageRequest, setPagingHeaders } from '../../paging.js';

export interface RentalRouteDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
}

const populate = ['vehicle', 'customer'] as const;

/** The API's rental representation (the OpenAPI `Rental` schema). */
export function toRentalDto(rental: Rental) {
  const km =
    rental.startOdometerKm != null && rental.endOdometerKm != null
      ? Math.round((rental.endOdometerKm - rental.startOdometerKm) * 1000) / 1000
      : null;
  return {
    id: rental.id,
    state: rental.state,
    activeMode: rental.activeMode ?? null,
    branchId: rental.branch.id,
    vehicle: {
      id: rental.vehicle.id,
      code: rental.vehicle.code,
      categoryId: rental.vehicle.category.id,
      licensePlate: rental.vehicle.licensePlate ?? null,
    },
    user: {
      id: rental.customer.id,
      firstName: rental.customer.firstName,
      lastName: rental.customer.lastName,
      email: rental.customer.email,
    },
    createdBy: rental.createdBy ?? null,
    reservedAt: rental.reservedAt.toISOString(),
    reservationExpiresAt: rental.reservationExpiresAt?.toISOString() ?? null,
    startedAt: rental.startedAt?.toISOString() ?? null,
    endedAt: rental.endedAt?.toISOString() ?? null,
    startPosition: rental.startPosition ?? null,
    endPosition: rental.endPosition ?? null,
    distanceKm: km,
    workflowId: rental.workflowId,
    createdAt: rental.createdAt.toISOString(),
    updatedAt: rental.updatedAt.toISOString(),
  };
}

async function loadRental(em: EntityManager, rentalId: number): Promise<Rental> {
  const rental = await em.findOne(Rental, rentalId, { populate });
  if (!rental) throw new DomainError('R404', `rental ${rentalId} not found`);
  return rental;
}

async function findVehicle(
  em: EntityManager,
  body: { vehicleId?: number; vehicleCode?: string },
): Promise<Vehicle> {
  const vehicle =
    body.vehicleId !== undefined
      ? await em.findOne(Vehicle, body.vehicleId)
      : await em.findOne(Vehicle, { code: body.vehicleCode! });
  if (!vehicle) throw new DomainError('V404');
  return vehicle;
}

/** Rentals of the operator interface: reads come from the read model, commands go to the rental workflow. */
export function rentalsRouter({ orm, temporal, taskQueue }: RentalRouteDeps): Router {
  const router = Router({ mergeParams: true });
  const context = (req: Request) => {
    const em = tenantEm(orm, pathTenant(req));
    return {
      em,
      tenant: pathTenant(req),
      principal: principalOf(req),
      authorizer: new RequestAuthorizer(em, principalOf(req)),
    };
  };
  const handleFor = (tenant: string, rentalId: number) =>
    temporal.workflow.getHandle(rentalWorkflowId(tenant, rentalId));

  router.get('/rentals', async (req, res) => {
    const { em, tenant, authorizer } = context(req);
    const branchId = Number(req.query.branchId);
    await authorizer.requireOnBranch('RENTAL_READ', branchId);
    // The validator has coerced the flag to a boolean.
    const includeChildren = (req.query.includeChildBranches as unknown) === true;
    const branches = includeChildren ? await branchWithDescendants(em, tenant, branchId) : [branchId];
    const where: Record<string, unknown> = { branch: { $in: branches } };
    const states = req.query.state as RentalState[] | RentalState | undefined;
    if (states) where.state = { $in: Array.isArray(states) ? states : [states] };
    if (req.query.vehicleId) where.vehicle = Number(req.query.vehicleId);
    if (req.query.guserId) where.customer = Number(req.query.guserId);
    const page = pageRequest(req);
    const [rentals, total] = await em.findAndCount(Rental, where, {
      populate,
      orderBy: orderBy(req.query.sort as string | undefined, 'createdAt,desc'),
      limit: page.size,
      offset: page.offset,
    });
    setPagingHeaders(res, total, page);
    res.json(rentals.map(toRentalDto));
  });

  router.get('/rentals/:rentalId', async (req, res) => {
    const { em, authorizer } = context(req);
    const rental = await loadRental(em, Number(req.params.rentalId));
    await authorizer.requireOnBranch('RENTAL_READ', rental.branch.id);
    res.json(toRentalDto(rental));
  });

  router.post('/rentals', async (req, res) => {
    const { em, tenant, principal, authorizer } = context(req);
    const body = req.body as {
      guserId: number;
      vehicleId?: number;
      vehicleCode?: string;
      branchId?: number;
      startImmediately?: boolean;
    };
    const vehicle = await findVehicle(em, body);
    await authorizer.requireOnBranch('RENTAL_CREATE', vehicle.branch.id);
    if (body.startImmediately) await authorizer.requireOnBranch('RENTAL_OPERATE', vehicle.branch.id);
    if (body.branchId !== undefined && body.branchId !== vehicle.branch.id) {
      throw new DomainError(
        '0022',
        `vehicle ${vehicle.code} belongs to branch ${vehicle.branch.id}, not ${body.branchId}`,
      );
    }
    if (!(await em.findOne(Customer, body.guserId)))
      throw new DomainError('U106', `customer ${body.guserId} not found`);

    const [{ id: rentalId }] = await em.execute<[{ id: number }]>(
      `select nextval('rental_id_seq')::int as id`,
    );
    const input: RentalWorkflowInput = {
      tenant,
      rentalId,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      customerId: body.guserId,
      requestedBy: principal.subject,
      startImmediately: body.startImmediately ?? false,
    };
    const handle = await temporal.workflow.start(RENTAL_WORKFLOW_TYPE, {
      workflowId: rentalWorkflowId(tenant, rentalId),
      taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: TenantIdKey, value: tenant },
        { key: BranchIdKey, value: String(vehicle.branch.id) },
        { key: VehicleIdKey, value: String(vehicle.id) },
        { key: CustomerIdKey, value: String(body.guserId) },
        { key: EntityStateKey, value: 'PENDING' },
      ],
    });
    // Answers once the reservation is made (and, with startImmediately, the start attempted) or refused.
    await handle.executeUpdate(awaitReservationUpdate);
    const rental = await loadRental(em.fork(), rentalId);
    res.status(201).setHeader('Location', `${req.baseUrl}/rentals/${rentalId}`).json(toRentalDto(rental));
  });

  router.post('/rentals/:rentalId/operation', async (req, res) => {
    const { em, tenant, principal, authorizer } = context(req);
    const rental = await loadRental(em, Number(req.params.rentalId));
    await authorizer.requireOnBranch('RENTAL_OPERATE', rental.branch.id);
    const body = req.body as Omit<RentalOperationRequest, 'requestedBy'>;
    if (terminalRentalStates.includes(rental.state))
      throw new DomainError('R201', `rental is ${rental.state}`);
    await handleFor(tenant, rental.id).executeUpdate(rentalOperationUpdate, {
      args: [{ ...body, requestedBy: principal.subject }],
    });
    res.json(toRentalDto(await loadRental(em.fork(), rental.id)));
  });

  router.delete('/rentals/:rentalId', async (req, res) => {
    const { em, tenant, principal, authorizer } = context(req);
    const rental = await loadRental(em, Number(req.params.rentalId));
    await authorizer.requireOnBranch('RENTAL_CANCEL', rental.branch.id);
    if (rental.state !== 'RESERVATION')
      throw new DomainError('R201', `only a reservation can be cancelled; the rental is ${rental.state}`);
    await handleFor(tenant, rental.id).executeUpdate(cancelReservationUpdate, {
      args: [{ requestedBy: principal.subject }],
    });
    res.json(toRentalDto(await loadRental(em.fork(), rental.id)));
  });

  return router;
}
