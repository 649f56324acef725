// Contract fuzzing: schemathesis (platform/schemathesis.ts) generates valid and invalid requests from
// the served OpenAPI documents and runs every check it has against the real backend (PostgreSQL,
// Temporal dev server, MQTT, simulated vehicles, response validation on). Settings and their reasons:
// tests/support/schemathesis.toml. A failure prints schemathesis's report with curl reproductions.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Customer } from '../db/entities/Customer.js';
import { Setting } from '../db/entities/Setting.js';
import { rateLimitBounds, rateLimitSettingKey } from '../domain/rate-limits.js';
import { Tenant } from '../db/entities/Tenant.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { demoCustomer } from '../db/seed/customers.js';
import { loadConfig, repoRoot } from '../platform/config.js';
import { ensureSchemathesis } from '../platform/schemathesis.js';
import { startTestBackend, type TestBackend } from './support/stack.js';
import { payingCustomer } from './support/payments.js';
import { sandboxTokens } from '../platform/payment-gateway/sandbox.js';
import { startApi, type RunningApi } from '../composition/api-server.js';
import { demoOperatorClient } from '../db/seed/access.js';

/**
 * How much the fuzz does. In `npm test` a fixed amount of work with a fixed seed, whatever the machine's
 * speed: FUZZ_EXAMPLES cases per operation in the fuzzing phase and as many stateful scenarios, the
 * examples phase, and no time budget, so every run of one commit sends the same kinds of requests and no
 * assertion depends on what a budget bought. `npm run fuzz` sets FLEETFLOW_FUZZ_SECONDS: each run then
 * adds the coverage phase (boundary values, missing parts, wrong types and media types for every
 * operation) and repeats fuzzing and stateful calls until its time is spent, with a fresh seed.
 */
const FUZZ_SECONDS = process.env.FLEETFLOW_FUZZ_SECONDS
  ? Number(process.env.FLEETFLOW_FUZZ_SECONDS)
  : undefined;
/** Fuzzing-phase cases per operation of the fixed run; FLEETFLOW_FUZZ_EXAMPLES. */
const FUZZ_EXAMPLES = Number(process.env.FLEETFLOW_FUZZ_EXAMPLES ?? 1);
/** Scenarios of the fixed run's call sequences (each up to max-steps calls); FLEETFLOW_FUZZ_SCENARIOS. */
const FUZZ_SCENARIOS = Number(process.env.FLEETFLOW_FUZZ_SCENARIOS ?? 8);
/** Customers (each with a card) and free vehicles the call sequences create their rentals with. */
const RENTAL_FIXTURES = 4;
/** The seed of the fixed run (`st run --seed`): the report's reproductions replay it. */
const FUZZ_SEED = Number(process.env.FLEETFLOW_FUZZ_SEED ?? 20261204);
/**
 * Wall-clock limit of one `st run`, then it is killed and the test fails: a hang, not a budget (the
 * fixed run sends a bounded number of requests, each answered within the 60 s request timeout).
 */
const RUN_LIMIT_MS = ((FUZZ_SECONDS ?? 1200) + 180) * 1000;
/** Extra customers, so reservations are not all refused with R102 once the four seeded ones hold one. */
const EXTRA_CUSTOMERS = 20;
/**
 * Operations that may answer only 401/403 in a run: five, or a quarter of the run's operations when more.
 * Some legitimately refuse every generated case (a command no seeded category configures answers A100,
 * the token endpoint refuses made-up credentials), and in a short budget an operation may get little more
 * than the coverage phase's missing- and wrong-token cases; broken token handling would show on most.
 */
const maxAuthOnlyOperations = (operations: number) => Math.max(5, Math.floor(operations / 4));
/**
 * Resources (first path segment below /back) of the operator document's second shard: finance and tasks,
 * issues and files, exports and platform webhooks, insight and administration (KPIs, analytics, event
 * search, settings, roles, messages) and benefits (voucherables, vouchers, annotations, rewards, packages,
 * subscriptions). Their linked operations stay inside (invoices → bill → refund, balances → settle →
 * payments, tasks → recurring tasks). The first shard holds the rest: fleet, geography, customers,
 * pricing, rentals and bookings, with the links of the stateful run (adminAddRental → getRental,
 * rentalOperation, cancelReservation, entityEvents).
 */
const SECOND_SHARD =
  '^/v1/[^/]+/back/(invoices|payments|balances|payment-gateways|revenue-centers|tasks|task-categories|issues|files|exports|export-settings|report-queries|webhook-subscriptions|kpis|analytics|events|settings|settings-management|roles|messages|voucherables|vouchers|constraint-vouchers|redeemable-codes|annotations|rewards|packages|subscriptions|user-subscriptions)(/|$)';

/** One `st run`: a document, or a shard of it by path. */
interface FuzzRun {
  name: string;
  document: 'back' | 'front' | 'maintenance';
  /** Seconds of its run when less than FUZZ_SECONDS (a small document's budget, `npm run fuzz`). */
  seconds?: number;
  /** The phases it runs (`--phases`), when not all of them. */
  phases?: string;
  /** `st` filter arguments selecting the shard's operations (none: the whole document). */
  filter: string[];
  /** Whether the stateful phase must have followed links (the shard holds the rentals). */
  expectsLinks: boolean;
  /**
   * The rental call sequences: adminAddRental's body names only the rental fixtures (customers with a
   * card, free vehicles), so scenarios start from rentals that exist rather than from refusals; schema-valid
   * data only. It runs alone, before the others, so what they fuzz (settings, vehicles) does not change
   * what it finds.
   */
  rentalSequences?: true;
  /** Checks this run leaves out, besides use_after_free (see the runs). */
  excludeChecks: string[];
}

/**
 * The runs, started together, each with its time budget: one `st` process is bound to one core by
 * Python's interpreter lock, so shards of a document get more of its operations' cases into the same
 * minutes (five processes: more only made the API, which serves them all, answer slower). Every operation
 * is in exactly one run's coverage and fuzzing phases, with the same number of cases per fuzzing cycle as
 * a run of its whole document.
 */
const FUZZ_RUNS: readonly FuzzRun[] = [
  {
    name: 'operator API, fleet, geography, customers, pricing, rentals and bookings',
    document: 'back',
    filter: ['--exclude-path-regex', SECOND_SHARD],
    // Its call sequences have a run of their own (below): in one run, a loaded machine let the coverage
    // phase's one case per operation take the whole budget.
    phases: 'examples,coverage,fuzzing',
    expectsLinks: false,
    // ensure_resource_availability (ST302) takes any 404 from an operation on a just-created resource for
    // "created resource not found". Here the linked updates (branches, bookings, areas, …) name other
    // resources in their bodies and answer 404 with that resource's code when it does not exist (B405 for
    // a business unit, as the catalogue says), and a just-created vehicle's sub-resources answer 404 with
    // their own code (MO103, the vehicle has no IoT module), which the check cannot tell apart; the API
    // tests read back what they create.
    excludeChecks: ['ensure_resource_availability'],
  },
  {
    name: 'operator API call sequences: a rental created, read, operated on, routed, cancelled, its events',
    document: 'back',
    filter: [
      'adminAddRental',
      'getRental',
      'rentalOperation',
      'cancelReservation',
      'rentalRoute',
      'entityEvents',
    ].flatMap((operationId) => ['--include-operation-id', operationId]),
    phases: 'stateful',
    expectsLinks: true,
    rentalSequences: true,
    excludeChecks: ['ensure_resource_availability'],
    seconds: 150,
  },
  {
    name: 'operator API, finance, tasks, issues, files, exports, webhooks, insight, administration and benefits',
    document: 'back',
    filter: ['--include-path-regex', SECOND_SHARD],
    expectsLinks: false,
    // As above: linked updates name other resources in their bodies (a line item its template, a task its
    // category, an issue its rental, a role assignment its role, a voucher its voucherable) and answer 404
    // with that resource's code.
    excludeChecks: ['ensure_resource_availability'],
  },
  { name: 'app API', document: 'front', filter: [], expectsLinks: false, excludeChecks: [] },
  {
    // The maintenance service's own document (docs/maintenance.md), without the token endpoints it
    // shares with the others (fuzzed in the operator runs). Called with the operator's back token. A small
    // budget: its 18 operations are plain reads and writes.
    name: 'maintenance service API',
    document: 'maintenance',
    filter: ['--exclude-path-regex', '^/v1/[^/]+/auth/'],
    expectsLinks: false,
    excludeChecks: [],
    seconds: 150,
  },
];
const configTemplate = path.join(repoRoot, 'tests', 'support', 'schemathesis.toml');

let backend: TestBackend;
let api: RunningApi;
let baseUrl: string;
/** The rental fixtures: customer and vehicle ids. */
const fixtures = { customerIds: [] as number[], vehicleIds: [] as number[] };
let st: string;
let workDir: string;
const tokens: Record<FuzzRun['document'], string> = { back: '', front: '', maintenance: '' };
async function issueToken(
  client: { clientId: string; clientSecret: string },
  scope: string,
): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/${backend.seed.tenant}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope,
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token)
    throw new Error(`token for ${client.clientId}: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** An access token of the seeded demo customer (scope `front`). */
async function customerToken(): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/${backend.seed.tenant}/auth/customer/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(demoCustomer),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token)
    throw new Error(`demo customer sign-in: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The schemathesis configuration plus the `[dictionaries.*]` of ids that exist in this run's tenant. */
async function writeConfig(directory: string): Promise<string> {
  const em = tenantEm(backend.orm, backend.seed.tenant);
  const customers = await em.find(Customer, {}, { orderBy: { id: 'asc' } });
  const vehicles = await em.find(Vehicle, {}, { orderBy: { id: 'asc' } });
  const { cityBranchId, branchId, otherBranchId, businessUnitId } = backend.seed;
  const dictionaries = {
    'customer-ids': customers.map((customer) => customer.id),
    'vehicle-ids': vehicles.map((vehicle) => vehicle.id),
    'branch-ids': [cityBranchId, branchId, otherBranchId, ...backend.seed.bookingStationIds],
    'business-unit-ids': [businessUnitId],
  };
  const generated = Object.entries(dictionaries)
    .map(([name, values]) => `[dictionaries.${name}]\nvalues = [${values.join(', ')}]\n`)
    .join('\n');
  const file = path.join(directory, 'schemathesis.toml');
  const template = await fs.readFile(configTemplate, 'utf8');
  await fs.writeFile(
    file,
    `${template}\n# Generated by tests/contract-fuzz.test.ts for this run.\n${generated}`,
  );
  return file;
}

type Json = Record<string, unknown>;
const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The served document with the tenant path segment fixed to this run's tenant (`/v1/{tenant}/...` →
 * `/v1/t-1a2b3c/...`, the parameter dropped). Tokens are tenant-bound and authentication answers
 * before validation, so a generated tenant would only ever test AUTH002; schemathesis's own fixed
 * parameter values (`[parameters]`) are not an alternative, as its coverage phase then reports
 * requests as schema-violating that were sent with the fixed, valid tenant. OpenAPI links lose their
 * tenant parameter as well; nothing else changes.
 */
function pinTenant(document: Json, tenant: string): Json {
  const paths = document.paths as Record<string, Json>;
  const pinned: Record<string, Json> = {};
  const isTenant = (name: string) => (parameter: unknown) => {
    let resolved = parameter as Json;
    const ref = resolved.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/parameters/')) {
      const components = (document.components as Json | undefined)?.parameters as Json | undefined;
      resolved = (components?.[ref.slice('#/components/parameters/'.length)] ?? {}) as Json;
    }
    return resolved.in === 'path' && resolved.name === name;
  };
  let count = 0;
  const names = new Set<string>();
  for (const [route, item] of Object.entries(paths)) {
    const name = route.match(/^\/v1\/\{([^}/]+)\}\//)?.[1];
    if (!name) {
      pinned[route] = item;
      continue;
    }
    count += 1;
    names.add(name);
    const withoutTenant = (parameters: unknown) =>
      Array.isArray(parameters) ? parameters.filter((parameter) => !isTenant(name)(parameter)) : parameters;
    const pinnedItem: Json = {};
    for (const [key, value] of Object.entries(item)) {
      pinnedItem[key] =
        key === 'parameters'
          ? withoutTenant(value)
          : httpMethods.includes(key)
            ? { ...(value as Json), parameters: withoutTenant((value as Json).parameters) }
            : value;
    }
    const pinnedRoute = route.replace(`{${name}}`, tenant);
    if (pinnedRoute.includes(`{${name}}`) || JSON.stringify(pinnedItem).includes(`"name":"${name}"`))
      throw new Error(`cannot pin the tenant of ${route}: "${name}" is used more than once`);
    pinned[pinnedRoute] = pinnedItem;
  }
  if (count === 0)
    throw new Error(
      'no path of the document starts with /v1/{tenant}/: adapt pinTenant in tests/contract-fuzz.test.ts to the new layout',
    );
  const result = { ...document, paths: pinned };
  dropLinkParameters(result, names);
  return result;
}

/** Removes the pinned parameters from every OpenAPI link (`tenant: $request.path.tenant`). */
function dropLinkParameters(node: unknown, names: Set<string>): void {
  if (!node || typeof node !== 'object') return;
  const object = node as Json;
  const links = object.links;
  if (links && typeof links === 'object' && !Array.isArray(links)) {
    for (const link of Object.values(links as Json)) {
      const parameters = (link as Json | undefined)?.parameters as Json | undefined;
      if (!parameters) continue;
      for (const name of names) {
        delete parameters[name];
        delete parameters[`path.${name}`];
      }
    }
  }
  for (const value of Object.values(object)) dropLinkParameters(value, names);
}

/**
 * adminAddRental's body for the call sequences: one of the fixture customers and one of the fixture
 * vehicles (by id), optionally started at once; the rest of the document is the served one.
 */
function narrowToRentalFixtures(document: Json): void {
  const schemas = (document.components as Json | undefined)?.schemas as Json | undefined;
  if (!schemas?.AdminAddRental)
    throw new Error('the operator document has no AdminAddRental schema: adapt narrowToRentalFixtures');
  schemas.AdminAddRental = {
    type: 'object',
    additionalProperties: false,
    required: ['guserId', 'vehicleId'],
    properties: {
      guserId: { type: 'integer', enum: fixtures.customerIds },
      vehicleId: { type: 'integer', enum: fixtures.vehicleIds },
      startImmediately: { type: 'boolean' },
    },
  };
}

/** The operations the configuration singles out (one-line or multi-line lists) must still exist in a document. */
async function expectConfiguredOperations(): Promise<void> {
  const template = await fs.readFile(configTemplate, 'utf8');
  const configured = [...template.matchAll(/^include-operation-id = (\[[^\]]*\]|"[^"]*")/gm)].flatMap(
    (match) => [...match[1]!.matchAll(/"([^"]+)"/g)].map((id) => id[1]!),
  );
  const present = new Set<unknown>();
  for (const name of ['back', 'front', 'maintenance']) {
    const document = (await (await fetch(`${baseUrl}/openapi/${name}.json`)).json()) as Json;
    for (const item of Object.values(document.paths as Record<string, Json>))
      for (const operation of Object.values(item)) present.add((operation as Json | undefined)?.operationId);
  }
  const missing = configured.filter((id) => !present.has(id));
  if (missing.length)
    throw new Error(
      `tests/support/schemathesis.toml configures operations neither document has: ${missing.join(', ')}`,
    );
}

/** Runs `st run` against one document; resolves with the exit code and the combined output. */
function runSchemathesis(
  args: string[],
  bearer: string,
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FLEETFLOW_FUZZ_BEARER: bearer, NO_COLOR: '1' };
  // Every request goes to 127.0.0.1: no proxy may see (or redirect) them.
  for (const name of ['http_proxy', 'https_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'])
    delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(st, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const append = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 4_000_000) output = output.slice(-2_000_000);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const timer = setTimeout(() => {
      output += `\n[contract-fuzz] st run exceeded ${RUN_LIMIT_MS / 1000} s and was killed\n`;
      child.kill('SIGKILL');
    }, RUN_LIMIT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function fuzz(run: FuzzRun): Promise<void> {
  const documentName = run.document;
  const response = await fetch(`${baseUrl}/openapi/${documentName}.json`);
  expect(response.status).toBe(200);
  const document = pinTenant((await response.json()) as Json, backend.seed.tenant);
  if (run.rentalSequences) narrowToRentalFixtures(document);
  const runDir = await fs.mkdtemp(path.join(workDir, `${documentName}-`));
  const schemaFile = path.join(runDir, `${documentName}.json`);
  await fs.writeFile(schemaFile, JSON.stringify(document, null, 2));
  const config = await writeConfig(runDir);
  const started = Date.now();
  // Every check but use_after_free: the API's only DELETE cancels a reservation, which stays readable
  // as CANCELLED, as the spec says (see [checks.use_after_free] in the settings).
  const checks = ['--checks', 'all', '--exclude-checks', ['use_after_free', ...run.excludeChecks].join(',')];
  // The fixed run: a number of cases and a seed, the phases without the coverage phase's per-operation
  // sets; `npm run fuzz`: a time budget over every phase.
  const phases = FUZZ_SECONDS
    ? run.phases
    : (run.phases ?? 'examples,coverage,fuzzing,stateful')
        .split(',')
        .filter((phase) => phase !== 'coverage')
        .join(',');
  const budget = FUZZ_SECONDS
    ? ['--max-time', String(Math.min(run.seconds ?? FUZZ_SECONDS, FUZZ_SECONDS))]
    : [
        ...['--max-examples', String(run.rentalSequences ? FUZZ_SCENARIOS : FUZZ_EXAMPLES)],
        ...['--seed', String(FUZZ_SEED), '--generation-deterministic'],
      ];
  const { code, output } = await runSchemathesis(
    [
      ...['--config-file', config, 'run', schemaFile, '--url', baseUrl],
      ...run.filter,
      ...checks,
      ...budget,
      ...(phases ? ['--phases', phases] : []),
      ...(run.rentalSequences ? ['--mode', 'positive'] : []),
      '--no-color',
    ],
    tokens[documentName],
    runDir,
  );
  const seconds = Math.round((Date.now() - started) / 1000);
  // The stateful phase runs only once links are known (inferred from Location headers of created
  // rentals); without it the operator API would only be fuzzed one call at a time.
  const linksCovered = Number(output.match(/API Links:\s+(\d+) covered/)?.[1] ?? 0);
  // What the budget bought, in the suite's output whether the run passes or not.
  const cases = output.match(/Test cases:\s+([^\n]+)/)?.[1]?.trim() ?? 'no test case line';
  console.log(`[contract-fuzz] ${run.name}: ${seconds} s, ${cases}, ${linksCovered} links covered`);
  if (code === 0 && run.expectsLinks && linksCovered === 0) {
    throw new Error(
      `the stateful phase followed no link (no rental was created?), so call sequences went untested:\n\n${output}`,
    );
  }
  const authOnly = Number(
    output.match(/Authentication failed: (\d+) operations? returned only 401\/403/)?.[1] ?? 0,
  );
  const selected = Number(output.match(/Operations:\s+(\d+) selected/)?.[1] ?? 0);
  if (code === 0 && authOnly > maxAuthOnlyOperations(selected)) {
    throw new Error(
      `${authOnly} operations of /openapi/${documentName}.json answered only 401/403: is token handling broken?\n\n${output}`,
    );
  }
  if (code !== 0) {
    // The API's log (its faults: 500 with code 0099, error level only) is in the suite's output.
    const verdict = /^=+ FAILURES =+$/m.test(output)
      ? 'found contract violations in'
      : 'could not complete its run against';
    throw new Error(
      `schemathesis (${run.name}: exit code ${code}, ${seconds} s) ${verdict} /openapi/${documentName}.json ` +
        `(served at ${baseUrl}, tenant pinned to ${backend.seed.tenant}; the curl lines need ` +
        `"Authorization: Bearer <token of scope ${documentName}>" instead of [Filtered]):\n\n${output}`,
    );
  }
}

/** The runs in flight, started once the backend is up; each test awaits its own. */
const runs = new Map<string, Promise<void>>();

beforeAll(async () => {
  // First run only: creates the venv and installs schemathesis from PyPI (about 30 s).
  st = await ensureSchemathesis(loadConfig());
  backend = await startTestBackend();
  const em = tenantEm(backend.orm, backend.seed.tenant);
  for (let index = 0; index < EXTRA_CUSTOMERS; index += 1) {
    em.create(Customer, {
      tenant: em.getReference(Tenant, backend.seed.tenant),
      email: `fuzz.customer.${index}@example.com`,
      firstName: 'Fuzz',
      lastName: `Customer ${index}`,
    });
  }
  // The fuzzer sends thousands of searches with one token: the search rate limit (RL101, 429) would
  // answer most of them, so its tenant allows as many as the setting may (the limit has its own suite).
  em.create(Setting, {
    tenant: em.getReference(Tenant, backend.seed.tenant),
    key: rateLimitSettingKey('search'),
    name: 'Search rate limit',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { points: rateLimitBounds.points.maximum, durationSeconds: 1 },
  });
  await em.flush();
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-fuzz-'));
  // The API process of `npm run api`, from the backend's environment; only faults reach its log.
  api = await startApi({
    ...backend.processEnv,
    JWT_SECRET: 'test-secret-for-the-contract-fuzz-suite',
    TOKEN_TTL_SECONDS: '3600',
    API_PORT: '0',
    API_HOST: '127.0.0.1',
    API_VALIDATE_RESPONSES: 'true',
    LOG_LEVEL: 'error',
    // Codes the fuzzer asks for are kept in the throwaway directory, not in the repository's .data.
    MAIL_OUTBOX_DIR: path.join(workDir, 'mail'),
    SMS_OUTBOX_DIR: path.join(workDir, 'sms'),
  });
  baseUrl = api.url;
  tokens.back = await issueToken(demoOperatorClient, 'back');
  // The maintenance service takes the operators' tokens.
  tokens.maintenance = tokens.back;
  // The app document is fuzzed as the signed-in demo customer: its current-user routes refuse an app
  // client token alone (0001), and every other app route accepts any front token.
  tokens.front = await customerToken();
  await expectConfiguredOperations();
  await createRentalFixtures();
  // The call sequences first and alone, then the other runs together.
  const sequences = FUZZ_RUNS.filter((run) => run.rentalSequences);
  const first = Promise.allSettled(sequences.map((run) => start(run, Promise.resolve())));
  for (const run of FUZZ_RUNS) if (!run.rentalSequences) start(run, first);
}, 600_000);

/** Starts a run once `after` settled and files it under its name for its test. */
function start(run: FuzzRun, after: Promise<unknown>): Promise<void> {
  const done = after.then(() => fuzz(run));
  // Handled here so a run failing before its test awaits it is not an unhandled rejection.
  done.catch(() => undefined);
  runs.set(run.name, done);
  return done;
}

/** Customers with a card and free vehicles of the seeded branch, named by the call sequences' rentals. */
async function createRentalFixtures(): Promise<void> {
  const finance = { orm: backend.orm, tenant: backend.seed.tenant };
  for (let index = 0; index < RENTAL_FIXTURES; index += 1)
    fixtures.customerIds.push(
      (await payingCustomer(finance, backend.seed.customerIds[0]!, sandboxTokens.visa)).id,
    );
  const reply = await fetch(
    `${baseUrl}/v1/${backend.seed.tenant}/back/vehicles?branchId=${backend.seed.branchId}&size=50`,
    { headers: { authorization: `Bearer ${tokens.back}` } },
  );
  const vehicles = (await reply.json()) as { id: number; available: boolean }[];
  fixtures.vehicleIds.push(
    ...vehicles
      .filter((vehicle) => vehicle.available)
      .map((vehicle) => vehicle.id)
      .slice(0, RENTAL_FIXTURES),
  );
  if (fixtures.vehicleIds.length === 0)
    throw new Error(`no free vehicle in branch ${backend.seed.branchId} for the rental call sequences`);
}

afterAll(async () => {
  await api?.close();
  await backend?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

describe('contract fuzzing with schemathesis (all checks, stateful phase included)', () => {
  for (const run of FUZZ_RUNS) test(run.name, () => runs.get(run.name)!, RUN_LIMIT_MS + 30_000);
});
