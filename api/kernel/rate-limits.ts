// The route kernel's rate limiter: routes that name a class (`rateLimit: 'search'`) count each caller's
// requests per tenant with rate-limiter-flexible and answer RL101 (429 with Retry-After) past the limit.
// The limits are settings (`rateLimits.<class>`, read through the read cache; domain/rate-limits.ts).
//
// Store: rate-limiter-flexible's memory store, one per API process (a fixed window per key). A limit is
// therefore per process: N API processes behind a balancer let a caller make up to N × points requests
// per window (sticky balancing makes it exact). The alternative, its PostgreSQL store, would hold one
// count for every process but costs an upsert on the pool for each limited request and a table of its
// own under migrations; the limit guards the database against runaway loops, which a per-process count
// does as well. See docs/observability.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { effectiveSetting } from '../../db/settings.js';
import { DomainError } from '../../domain/errors.js';
import {
  rateLimitOf,
  rateLimitSettingKey,
  type RateLimit,
  type RateLimitClass,
} from '../../domain/rate-limits.js';

/** Who is counted: the token's subject in its tenant (`client:demo-operator`, `customer:42`). */
export interface RateLimitedCaller {
  tenant: string;
  subject: string;
}

/** Counts requests of each class per caller; one per API process (the kernel's services). */
export class RateLimits {
  /** One limiter per class and limit: a changed setting starts a fresh window under the new limit. */
  private readonly limiters = new Map<string, RateLimiterMemory>();

  /** The limit in force for a class in a tenant: the setting laid over the default. */
  async limitOf(em: EntityManager, tenant: string, rateLimitClass: RateLimitClass): Promise<RateLimit> {
    const row = await effectiveSetting(em, tenant, rateLimitSettingKey(rateLimitClass), undefined);
    return rateLimitOf(rateLimitClass, row?.value);
  }

  /** Counts one request; throws RL101 with `retryAfterSeconds` when the caller is past the limit. */
  async consume(em: EntityManager, rateLimitClass: RateLimitClass, caller: RateLimitedCaller): Promise<void> {
    const limit = await this.limitOf(em, caller.tenant, rateLimitClass);
    const name = `${rateLimitClass}:${limit.points}:${limit.durationSeconds}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterMemory({
        keyPrefix: name,
        points: limit.points,
        duration: limit.durationSeconds,
      });
      this.limiters.set(name, limiter);
    }
    // The key is unambiguous: a tenant id has no NUL, and the subject comes from a verified token.
    const key = `${caller.tenant}\u0000${caller.subject}`;
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new DomainError(
        'RL101',
        `more than ${limit.points} ${rateLimitClass} requests in ${limit.durationSeconds} s; retry in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  }
}
