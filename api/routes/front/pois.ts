// The app's view of a point of interest.
import { Type } from '@sinclair/typebox';
import { Poi } from '../../../db/entities/Poi.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { PoiSchema, toPoiDto } from '../../shared/poi-representation.js';
import { appVisibleBranch } from './branches.js';

export const getAppPoi = defineRoute({
  operationId: 'getAppPoi',
  method: 'get',
  path: '/pois/{poiId}',
  interface: 'front',
  summary: 'One enabled POI of a public branch',
  description: 'Requires app=true, as the spec says.',
  tags: ['POIs'],
  params: Type.Object({ poiId: Id() }),
  query: Type.Object({ app: Type.Boolean({ enum: [true], description: 'Must be true.' }) }),
  access: { anyCaller: 'only enabled POIs of enabled categories on public branches in service are shown.' },
  responses: { 200: { description: 'The POI', schema: PoiSchema } },
  errors: ['POI404'],
  async handler({ em, params }) {
    const poi = await em.findOne(
      Poi,
      { id: params.poiId, enabled: true, category: { enabled: true }, branch: appVisibleBranch },
      { populate: ['category'] },
    );
    if (!poi) throw new DomainError('POI404', `POI ${params.poiId} not found`);
    return ok(toPoiDto(poi));
  },
});

export const appPoiRoutes = [getAppPoi];
