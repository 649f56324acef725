// The HTTP application and its three documents, from every domain's endpoints.
import type express from 'express';
import { createApp as createAppWith, type ApiDeps } from '../api/app.js';
import {
  backDocument as backDocumentOf,
  frontDocument as frontDocumentOf,
  maintenanceDocument as maintenanceDocumentOf,
} from '../api/documents.js';
import { loadConfig } from '../platform/config.js';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';
import type { ObjectStore } from '../platform/object-store.js';
import { configuredObjectStore } from './object-store.js';
import { paymentGatewaysFor } from './payment-gateways.js';
import { allRoutes, errorCatalogue, permissionCatalogue, processKinds, publicHandlers } from './registry.js';

/**
 * The operator and app interfaces with every domain's endpoints; the payment gateways and the object store
 * default to the configuration's (a test passes its worker's, so both sides share one sandbox configuration).
 */
export const createApp = (
  deps: Omit<ApiDeps, 'paymentGateways' | 'objectStore'> & {
    paymentGateways?: PaymentGateways;
    objectStore?: ObjectStore;
  },
): express.Express =>
  createAppWith(
    {
      ...deps,
      paymentGateways: deps.paymentGateways ?? paymentGatewaysFor(deps.orm, loadConfig()),
      objectStore: deps.objectStore ?? configuredObjectStore(),
    },
    {
      routes: allRoutes(),
      permissions: permissionCatalogue(),
      processes: processKinds(),
      errorCatalogue: errorCatalogue(),
      publicHandlers: publicHandlers(),
    },
  );

/** The operator interface's document (`/openapi/back.json`). */
export const backDocument = () => backDocumentOf(allRoutes());

/** The app interface's document (`/openapi/front.json`). */
export const frontDocument = () => frontDocumentOf(allRoutes());

/** The maintenance service's document (`/openapi/maintenance.json`). */
export const maintenanceDocument = () => maintenanceDocumentOf(allRoutes());
