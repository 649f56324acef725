// The shape of one business domain as the platform registers it: its tables, permissions, endpoints,
// activities and workflows. The list of domains (./index.ts) is the only place a new domain is added.
import type { EntityClass } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AnyRoute } from '../../api/kernel/route.js';
import type { DomainPermissions } from '../../domain/permissions.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { VehicleCommandClient } from '../../devices/command-client.js';

/** Everything activity factories may depend on; each factory takes what it needs. */
export interface ActivityDeps {
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  /** Reply timeout of vehicle commands when the category sets none. */
  vehicleCommandTimeoutMs: number;
}

/** Any activity: `never[]` parameters accept every function, whatever it takes. */
type ActivityFunction = (...args: never[]) => Promise<unknown>;

/** A long-running process kind: how its workflow ids start and what a call to a finished one answers. */
export interface ProcessKind {
  /** First segment of the workflow id, e.g. `rental` in `rental:{tenant}:{id}`. */
  workflowIdPrefix: string;
  /** Catalogue code answered when an update reaches a workflow that no longer runs. */
  notRunning: ErrorCode;
  /** What the process is about, for the message: "the rental is no longer running". */
  noun: string;
}

export interface DomainModule {
  name: string;
  entities?: readonly EntityClass<unknown>[];
  permissions?: DomainPermissions;
  /** Endpoints of every interface (back, front, auth). */
  routes?: readonly AnyRoute[];
  activities?: (deps: ActivityDeps) => Record<string, ActivityFunction>;
  /** Module exporting the domain's workflow functions; bundled into the worker's workflow code. */
  workflows?: URL;
  processes?: readonly ProcessKind[];
}

/** Declares a domain (identity, for type checking). */
export function defineDomain(domain: DomainModule): DomainModule {
  return domain;
}
