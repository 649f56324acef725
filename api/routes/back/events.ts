import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Event, Rental, Vehicle } from '../../../db/entities/index.js';
import { tenantEm } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { RequestAuthorizer } from '../../authorization.js';
import { pathTenant, principalOf } from '../../context.js';
import { pageRequest, setPagingHeaders } from '../../paging.js';

/** The API's event representation; GPS positions only for callers holding POSITION_LOG_READ. */
export function toEventDto(event: Event, showPosition: boolean) {
  return {
    id: Number(event.id),
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    branchId: event.branchId ?? null,
    vehicleId: event.vehicleId ?? null,
    rentalId: event.rentalId ?? null,
    guserId: event.customerId ?? null,
    adminGuser: event.adminSubject ?? null,
    position: showPosition ? (event.position ?? null) : null,
    description: event.description ?? null,
    payload: event.payload ?? null,
  };
}

/** `GET /{entityType}/{entityId}/events`: an entity's timeline, for support and audits. */
export function eventsRouter(orm: MikroORM): Router {
  const router = Router({ mergeParams: true });
  router.get('/:entityType/:entityId/events', async (req, res) => {
    const em = tenantEm(orm, pathTenant(req));
    const authorizer = new RequestAuthorizer(em, principalOf(req));
    const entityId = Number(req.params.entityId);
    const entityType = req.params.entityType as 'RENTALS' | 'VEHICLES';
    const owner =
      entityType === 'RENTALS'
        ? await em.findOne(Rental, entityId, { fields: ['branch'] })
        : await em.findOne(Vehicle, entityId, { fields: ['branch'] });
    if (!owner) throw new DomainError(entityType === 'RENTALS' ? 'R404' : 'V404');
    await authorizer.requireOnBranch('EVENT_READ', owner.branch.id);
    const showPosition = await authorizer.holds({
      permission: 'POSITION_LOG_READ',
      branchId: owner.branch.id,
    });
    const page = pageRequest(req, 50);
    const where = entityType === 'RENTALS' ? { rentalId: entityId } : { vehicleId: entityId };
    const [events, total] = await em.findAndCount(Event, where, {
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    setPagingHeaders(res, total, page);
    res.json(events.map((event) => toEventDto(event, showPosition)));
  });
  return router;
}
