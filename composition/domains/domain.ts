// The shape of one business domain as the composition root registers it: its tables, permissions,
// endpoints, activities and workflows. The list of domains (./index.ts) is the only place a new domain is added.
import type { EntityClass } from '@mikro-orm/core';
import type { AnyRoute } from '../../api/kernel/route.js';
import type { DomainPermissions } from '../../domain/permissions.js';
import type { ActivityDeps } from '../../activities/deps.js';
import type { ProcessKind } from '../../workflows/process-kind.js';

export type { ActivityDeps, ProcessKind };

/** Any activity: `never[]` parameters accept every function, whatever it takes. */
type ActivityFunction = (...args: never[]) => Promise<unknown>;

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
