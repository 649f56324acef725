import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Event } from '../../../db/entities/index.js';
import { tenantEm } from '../../../db/orm.js';
import { pathTenant } from '../../context.js';

/** Parses the Device-Position header ("lat;lng" or "lat lng"); invalid values are ignored, as the spec asks. */
export function parseDevicePosition(header: string | undefined): { lat: number; lng: number } | undefined {
  const parts = header?.trim().split(/[;\s]+/);
  if (!parts || parts.length !== 2) return undefined;
  const [lat, lng] = parts.map(Number) as [number, number];
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180)
    return undefined;
  return { lat, lng };
}

/** `POST /userevents?type=APP_...`: app interaction telemetry, anonymous or linked to the signed-in caller. */
export function userEventsRouter(orm: MikroORM): Router {
  const router = Router({ mergeParams: true });
  router.post('/userevents', async (req, res) => {
    const em = tenantEm(orm, pathTenant(req));
    const body =
      req.body && typeof req.body === 'object' && Object.keys(req.body).length
        ? (req.body as Record<string, unknown>)
        : null;
    em.create(Event, {
      tenant: pathTenant(req) as never,
      type: String(req.query.type),
      position: parseDevicePosition(req.header('device-position')) ?? null,
      adminSubject: req.context.principal?.subject ?? null,
      payload: body ? { requestInfo: body } : null,
    });
    await em.flush();
    res.status(204).end();
  });
  return router;
}
