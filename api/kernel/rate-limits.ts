// The route kernel's rate limiter: routes that name a class (`rateLimit: 'search'`) count each caller's
// requests per tenant with rate-limiter-flexible and answer RL101 (429 with Retry-After) past the limit.
// The limits are settings (`rateLimits.<class>`, read through the read cache; domain/rate-limits.ts).
//
// Store: rate-limiter-flexible's PostgreSQL store (the table `rate_limit_count`, db/entities/RateLimitCount.ts),
// one count per caller and window for every API process: with N API processes behind a balancer a caller
// still gets `points` requests per window, not N × points. It costs one upsert on the pool per limited
// request (the search class's routes); expired windows are swept by the store every five minutes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
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

/** Counts requests of each class per caller, in PostgreSQL; one per API process (the kernel's services). */
export class RateLimits {
  /** One limiter per class and limit: a changed setting starts a fresh window under the new limit. */
  private readonly limiters = new Map<string, RateLimiterPostgres>();

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
      limiter = new RateLimiterPostgres({
        storeClient: await em.getConnection().getNativeClient(),
        storeType: 'pool',
        tableName: 'rate_limit_count',
        // The migration made it (db/migrations/…_rate_limit_counts.ts).
        tableCreated: true,
        keyPrefix: name,
        points: limit.points,
        duration: limit.durationSeconds,
      });
      this.limiters.set(name, limiter);
    }
    // The key is unambiguous: a tenant id is one path segment (no slash), and the subject comes from a
    // verified token.
    const key = `${caller.tenant}/${caller.subject}`;
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
