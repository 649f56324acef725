import type { MikroORM } from '@mikro-orm/postgresql';
import type { VehicleCommandClient } from '../devices/command-client.js';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';
import type { ObjectStore } from '../platform/object-store.js';
import type { PaymentStarter } from './payment-billing.js';
import type { BackgroundWork } from './background-work.js';

/** Everything activity factories may depend on; each factory takes what it needs. */
export interface ActivityDeps {
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  /** Reply timeout of vehicle commands when the category sets none. */
  vehicleCommandTimeoutMs: number;
  /** The payment gateway adapters (finance's charges and refunds). */
  paymentGateways: PaymentGateways;
  /**
   * Starts workflows from activities: automatic billing starts the payment workflow of an invoice, eagerly
   * when the client shares the worker's connection.
   */
  temporal: PaymentStarter;
  /** The object store files and exports are kept in. */
  objectStore: ObjectStore;
  /** Work activities leave running after they answered (an ended rental's bill), which the worker drains when it stops. */
  background: BackgroundWork;
}
