// The set-up most API suites share, made once: the HTTP stack for a freshly seeded tenant, the demo
// operator and app clients' tokens, and on request a rival tenant (cross-tenant denials) and the demo
// customer (Anna) signed in as the app signs her in. One `stop()` tears it all down.
import { tenantEm, type EntityManager } from '../../db/orm.js';
import { type SeededTenant } from '../../db/seed.js';
import { demoAppClient, demoOperatorClient } from '../../db/seed/access.js';
import { demoCustomer } from '../../db/seed/customers.js';
import { TokenService } from '../../api/auth.js';
import { seedTenant } from '../../composition/seed.js';
import { startHttpStack, testJwtSecret, type HttpStack } from './http.js';
import { uniqueTenant, type TestBackend } from './stack.js';

export interface SessionOptions extends NonNullable<Parameters<typeof startHttpStack>[0]> {
  /** Seeds a second tenant: `true` for the usual one, or its tenant id prefix and name. */
  rival?: boolean | { prefix: string; name: string };
  /** Signs the demo customer in with her password (`annaToken`). */
  signInDemoCustomer?: boolean;
}

export interface Session {
  stack: HttpStack;
  backend: TestBackend;
  seed: SeededTenant;
  /** The demo operator client's token (scope back). */
  operatorToken: string;
  /** The demo app client's token (scope front). */
  appClientToken: string;
  /** The demo customer's access token; only with `signInDemoCustomer`. */
  annaToken: string;
  /** The second tenant; only with `rival`. */
  rival: SeededTenant;
  /** The demo operator client's token in the second tenant; only with `rival`. */
  rivalOperatorToken: string;
  /** An entity manager confined to the seeded tenant. */
  em(): EntityManager;
  /** A customer access token (scope front) signed like the API signs them, without a sign-in. */
  customerToken(customerId: number, tenant?: string): Promise<string>;
  stop(): Promise<void>;
}

/** A field the session was not asked for: reading it is a mistake in the suite's set-up. */
function notRequested(field: string, option: string): never {
  throw new Error(`session.${field} needs startSession({ ${option}: true })`);
}

/** Starts the stack and signs in what the options ask for. */
export async function startSession(options: SessionOptions = {}): Promise<Session> {
  const { rival: rivalOption, signInDemoCustomer, ...stackOptions } = options;
  const stack = await startHttpStack(stackOptions);
  try {
    const { backend } = stack;
    const { seed } = backend;
    const rivalSpec =
      rivalOption === true ? { prefix: 'rival', name: 'Rival Mobility' } : rivalOption || null;
    const rival = rivalSpec
      ? await seedTenant(backend.orm.em, uniqueTenant(rivalSpec.prefix), rivalSpec.name)
      : undefined;
    const [operatorToken, appClientToken, rivalOperatorToken] = await Promise.all([
      stack.token(seed.tenant, demoOperatorClient),
      stack.token(seed.tenant, demoAppClient),
      rival ? stack.token(rival.tenant, demoOperatorClient) : undefined,
    ]);
    let annaToken: string | undefined;
    if (signInDemoCustomer) {
      const signedIn = await stack.call('POST', `/v1/${seed.tenant}/auth/customer/sign-in`, {
        body: { email: demoCustomer.email, password: demoCustomer.password },
      });
      if (signedIn.status !== 200)
        throw new Error(
          `demo customer sign-in answered ${signedIn.status}: ${JSON.stringify(signedIn.body)}`,
        );
      annaToken = signedIn.body.access_token as string;
    }
    const tokens = new TokenService(testJwtSecret, 600);
    return {
      stack,
      backend,
      seed,
      operatorToken,
      appClientToken,
      get annaToken() {
        return annaToken ?? notRequested('annaToken', 'signInDemoCustomer');
      },
      get rival() {
        return rival ?? notRequested('rival', 'rival');
      },
      get rivalOperatorToken() {
        return rivalOperatorToken ?? notRequested('rivalOperatorToken', 'rival');
      },
      em: () => tenantEm(backend.orm, seed.tenant),
      customerToken: (customerId, tenant = seed.tenant) =>
        tokens.issue({ tenant, subjectType: 'CUSTOMER', subjectId: String(customerId), scope: 'front' }),
      stop: () => stack.stop(),
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
