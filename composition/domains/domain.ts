// The shape of one business domain as the composition root registers it: its tables, permissions,
// endpoints, activities and workflows. The list of domains (./index.ts) is the only place a new domain is added.
import type { Constructor, EntityClass } from '@mikro-orm/core';
import type { Migration } from '@mikro-orm/migrations';
import type { AnyRoute } from '../../api/kernel/route.js';
import type { PublicHandlerFactory } from '../../api/app.js';
import type { EntityTimeline } from '../../api/routes/back/events.js';
import type { DomainPermissions } from '../../domain/permissions.js';
import type { CatalogueEntry } from '../../domain/errors.js';
import type { ActivityDeps } from '../../activities/deps.js';
import type { ProcessKind } from '../../workflows/process-kind.js';
import type { DomainSeed } from '../../db/seed/board.js';

export type { ActivityDeps, ProcessKind };

/** Any activity: `never[]` parameters accept every function, whatever it takes. */
type ActivityFunction = (...args: never[]) => Promise<unknown>;

export interface DomainModule {
  name: string;
  entities?: readonly EntityClass<unknown>[];
  /** Its schema changes (db/migrations); every domain's run in the order of their timestamped names. */
  migrations?: readonly Constructor<Migration>[];
  permissions?: DomainPermissions;
  /** Its error codes (`domain/<domain>.errors.ts`); the catalogue is assembled from every domain's. */
  errors?: Readonly<Record<string, CatalogueEntry>>;
  /** Its part of a seeded tenant (demo data, test tenants), run in the order of the domain list. */
  seed?: DomainSeed;
  /**
   * Endpoints of every interface (back, front, auth); a function when they are built from what all
   * domains declare (the event timelines).
   */
  routes?: readonly AnyRoute[] | ((platform: PlatformContents) => readonly AnyRoute[]);
  /** Handlers outside the interface documents (public feeds), mounted before authentication. */
  publicHandlers?: readonly PublicHandlerFactory[];
  /** The event timelines of its entities (`GET /{entityType}/{entityId}/events`). */
  timelines?: readonly EntityTimeline[];
  activities?: (deps: ActivityDeps) => Record<string, ActivityFunction>;
  /** Module exporting the domain's workflow functions; bundled into the worker's workflow code. */
  workflows?: URL;
  processes?: readonly ProcessKind[];
}

/** What every domain declares, for the domains whose endpoints are built from it. */
export interface PlatformContents {
  timelines: readonly EntityTimeline[];
}

/** Declares a domain (identity, for type checking). */
export function defineDomain(domain: DomainModule): DomainModule {
  return domain;
}
