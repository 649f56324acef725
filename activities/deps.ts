import type { MikroORM } from '@mikro-orm/postgresql';
import type { VehicleCommandClient } from '../devices/command-client.js';

/** Everything activity factories may depend on; each factory takes what it needs. */
export interface ActivityDeps {
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  /** Reply timeout of vehicle commands when the category sets none. */
  vehicleCommandTimeoutMs: number;
}
