// The HTTP application and its two documents, from every domain's endpoints.
import type express from 'express';
import { createApp as createAppWith, type ApiDeps } from '../api/app.js';
import { backDocument as backDocumentOf, frontDocument as frontDocumentOf } from '../api/documents.js';
import { allRoutes, errorCatalogue, permissionCatalogue, processKinds } from './registry.js';

/** The operator and app interfaces with every domain's endpoints. */
export const createApp = (deps: ApiDeps): express.Express =>
  createAppWith(deps, {
    routes: allRoutes(),
    permissions: permissionCatalogue(),
    processes: processKinds(),
    errorCatalogue: errorCatalogue(),
  });

/** The operator interface's document (`/openapi/back.json`). */
export const backDocument = () => backDocumentOf(allRoutes());

/** The app interface's document (`/openapi/front.json`). */
export const frontDocument = () => frontDocumentOf(allRoutes());
