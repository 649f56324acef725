// What the spec obliges a rental lifecycle to do beyond its rows, each in its least form, for the floor of
// bench/lifecycle-floor.ts (`FloorParts.obligations`): so the floor answers "what does any implementation
// of this spec cost here", not only "what do its rows cost".
// - each call: a signed access token verified by the API's own TokenService (HS256, remembered per token),
//   the body validated against its schema (ajv, compiled once), a trace id, the operator's branch checked
//   against the rental's (the read the floor's `reads` makes), the request's duration in a histogram;
// - the reservation: the customer's facts checked in its statement (active, a payment method, no open
//   rental, no overdue invoice), answered so a refusal can say which;
// - END: the end requirement read before the LOCK (the vehicle inside the business area, from its last
//   position, by the product's `geofenceContains`) with the tariff, the price computed in decimals (unlock fee, minutes, VAT split), and in
//   END's statement the invoice numbered from a sequence with its two lines, the INVOICE_CREATED and
//   INVOICE_BILLED events, the ledger's debit and an outbox row per event;
// - the charge: the gateway's book (the sandbox gateway keeps it in PostgreSQL) in one statement, its
//   outcome in another with the attempt, the invoice paid, the ledger's credit, PAYMENT_PAID and its
//   outbox row.
// Not here: the outbox's delivery, telemetry ingestion, benefits and vouchers, the logs.
import { randomBytes, randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { Decimal } from 'decimal.js';
import { Histogram, Registry } from 'prom-client';
import { TokenService } from '../api/auth.js';
import { geofenceContains, type GeofenceGeometry } from '../domain/geofence.js';
import { isDomainError } from '../domain/errors.js';

/** The tables and rows the obligations add to the floor's schema, for `lanes` customers and vehicles. */
export const obligationSchemaStatements = (s: string, lanes: number) => [
  `create table ${s}.tariff (id int primary key, unlock_fee numeric(12, 2) not null,
     per_minute numeric(12, 4) not null, vat_rate numeric(5, 4) not null)`,
  `insert into ${s}.tariff values (1, 1.00, 0.2900, 0.1900)`,
  `create table ${s}.customer (id int primary key, state text not null)`,
  `create table ${s}.payment_source (id int primary key, customer_id int not null references ${s}.customer,
     token text not null)`,
  `insert into ${s}.customer select n, 'ACTIVE' from generate_series(1, ${lanes}) n`,
  `insert into ${s}.payment_source select n, n, 'pm_floor_' || n from generate_series(1, ${lanes}) n`,
  `alter table ${s}.vehicle add column lat double precision not null default 48.137,
     add column lon double precision not null default 11.575`,
  `alter table ${s}.rental add column customer_id int, add column tariff_id int not null default 1,
     add column price_gross numeric(12, 2)`,
  `create index on ${s}.rental (customer_id, state)`,
  `create sequence ${s}.invoice_number`,
  `alter table ${s}.invoice add column number text unique, add column customer_id int,
     add column net numeric(12, 2), add column vat numeric(12, 2)`,
  `create index on ${s}.invoice (customer_id, state)`,
  `alter table ${s}.invoice_line add column net numeric(12, 2), add column vat numeric(12, 2)`,
  `create table ${s}.balance_update (id bigserial primary key, customer_id int not null,
     amount numeric(12, 2) not null, reason text not null, idempotency_key text not null unique,
     created_at timestamptz not null)`,
  `create table ${s}.webhook_outbox (id bigserial primary key, event_id bigint not null unique,
     created_at timestamptz not null)`,
  `create table ${s}.gateway_charge (idempotency_key text primary key, amount numeric(12, 2) not null,
     source_token text not null, reference text not null)`,
];

/** The obligations' statements (`$n` as each says). */
export function obligationStatements(s: string) {
  const event = (name: string, type: string, key: string, from = '') =>
    `${name} as (insert into ${s}.event (rental_id, type, idempotency_key, created_at)
       select $1, '${type}', ${key}, now() ${from} on conflict (idempotency_key) do nothing returning id)`;
  return {
    // $1 rental, $2 key, $3 vehicle, $4 customer: the facts answered, the rows written only if they hold.
    reserve: `with f as (select c.state = 'ACTIVE' as active,
          exists (select 1 from ${s}.payment_source p where p.customer_id = c.id) as payable,
          not exists (select 1 from ${s}.rental r where r.customer_id = c.id and r.state <> 'ENDED') as free,
          not exists (select 1 from ${s}.invoice i where i.customer_id = c.id and i.state = 'OVERDUE') as clear
        from ${s}.customer c where c.id = $4),
      ${event('ev', 'RENTAL_RESERVATION', '$2', 'from f where active and payable and free and clear')},
      r as (insert into ${s}.rental (id, vehicle_id, customer_id, state, updated_at)
              select $1, $3, $4, 'RESERVATION', now() from ev on conflict (id) do nothing returning vehicle_id),
      v as (update ${s}.vehicle set rental_state = 'RESERVED', updated_at = now()
              where id = (select vehicle_id from r))
      select active, payable, free, clear from f`,
    // $1 rental: the end requirement's and the price's inputs.
    endInputs: `select r.started_at, r.customer_id, v.lat, v.lon, t.unlock_fee, t.per_minute, t.vat_rate
      from ${s}.rental r join ${s}.vehicle v on v.id = r.vehicle_id join ${s}.tariff t on t.id = r.tariff_id
      where r.id = $1`,
    // $1 rental, $2 key, $3 command, $4 customer, $5..$7 gross/net/vat, $8..$10 the unlock line's,
    // $11..$13 the minutes line's.
    end: `with ${event('ev', 'RENTAL_END', '$2')},
      r as (update ${s}.rental set state = 'ENDED', updated_at = now(), ended_at = now(), price_gross = $5
            where id = $1 and exists (select 1 from ev) returning vehicle_id),
      c as (update ${s}.vehicle_command set status = 'OK', answered_at = now() where command_id = $3),
      v as (update ${s}.vehicle set rental_state = null, locked = true, updated_at = now()
            where id = (select vehicle_id from r)),
      i as (insert into ${s}.invoice (rental_id, customer_id, number, state, total_gross, net, vat)
            select $1, $4, 'INV-' || nextval('${s}.invoice_number'), 'BILLED', $5, $6, $7 from ev
            returning id),
      l as (insert into ${s}.invoice_line (invoice_id, code, gross, net, vat)
            select id, 'UNLOCK', $8::numeric, $9::numeric, $10::numeric from i
            union all select id, 'MINUTES', $11::numeric, $12::numeric, $13::numeric from i),
      ${event('ec', 'INVOICE_CREATED', `$2 || '/invoice-created'`, 'from i')},
      ${event('eb', 'INVOICE_BILLED', `$2 || '/invoice-billed'`, 'from i')},
      b as (insert into ${s}.balance_update (customer_id, amount, reason, idempotency_key, created_at)
            select $4, -$5::numeric, 'INVOICE_BILLED', $2, now() from i),
      o as (insert into ${s}.webhook_outbox (event_id, created_at)
            select id, now() from ev union all select id, now() from ec union all select id, now() from eb)
      insert into ${s}.payment (invoice_id, state, amount) select id, 'OPEN', $5 from i`,
    // $1 rental, $2 the attempt's key: the gateway's book, answering the charge's reference.
    gatewayCharge: `insert into ${s}.gateway_charge (idempotency_key, amount, source_token, reference)
      select $2, p.amount, ps.token, 'ch_' || md5($2) from ${s}.invoice i
        join ${s}.payment p on p.invoice_id = i.id
        join ${s}.payment_source ps on ps.customer_id = i.customer_id
       where i.rental_id = $1
      on conflict (idempotency_key) do update set reference = excluded.reference
      returning reference`,
    // $1 rental, $2 key: the outcome, the ledger's credit and the event with its outbox row.
    charged: `with ${event('ev', 'PAYMENT_PAID', '$2')},
      p as (update ${s}.payment set state = 'PAID', paid_at = now()
            where invoice_id = (select id from ${s}.invoice where rental_id = $1) and state = 'OPEN'
              and exists (select 1 from ev) returning id, invoice_id, amount),
      a as (insert into ${s}.payment_attempt (payment_id, number, state) select id, 1, 'SUCCEEDED' from p),
      i as (update ${s}.invoice set state = 'PAID' where id = (select invoice_id from p) returning customer_id),
      b as (insert into ${s}.balance_update (customer_id, amount, reason, idempotency_key, created_at)
            select (select customer_id from i), amount, 'PAYMENT_PAID', $2, now() from p)
      insert into ${s}.webhook_outbox (event_id, created_at) select id, now() from ev`,
  };
}

/** The business area: a ring around the lanes' vehicles (they stand at 48.137, 11.575), as a geofence. */
const area: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [11.5, 48.1],
        [11.65, 48.1],
        [11.68, 48.16],
        [11.62, 48.2],
        [11.52, 48.19],
        [11.48, 48.15],
        [11.5, 48.1],
      ],
    ],
  ],
};

/** Is the vehicle's last position inside the business area? */
export const insideArea = (lat: number, lng: number): boolean => geofenceContains(area, { lat, lng });

interface EndInputs {
  started_at: Date | null;
  unlock_fee: string;
  per_minute: string;
  vat_rate: string;
}

/** END's price in decimals: the unlock fee and the started minutes, each line split into net and VAT. */
export function priceOf(inputs: EndInputs, now = Date.now()) {
  const rate = new Decimal(inputs.vat_rate);
  const split = (gross: Decimal) => {
    const net = gross.div(rate.plus(1)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return [gross.toFixed(2), net.toFixed(2), gross.minus(net).toFixed(2)] as const;
  };
  const minutes = Math.max(1, Math.ceil((now - (inputs.started_at?.getTime() ?? now)) / 60_000));
  const unlock = new Decimal(inputs.unlock_fee);
  const ride = new Decimal(inputs.per_minute).times(minutes).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const [unlockLine, rideLine] = [split(unlock), split(ride)];
  const total = (k: 0 | 1 | 2) => new Decimal(unlockLine[k]).plus(rideLine[k]).toFixed(2);
  return { total: [total(0), total(1), total(2)] as const, unlockLine, rideLine };
}

const operationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['operationType'],
  properties: { operationType: { type: 'string', enum: ['START', 'PARK', 'DRIVE', 'END'] } },
};
const creationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['guserId', 'vehicleId'],
  properties: {
    guserId: { type: 'integer', minimum: 1 },
    vehicleId: { type: 'integer', minimum: 1 },
  },
};

/** A refusal of a call, with the catalogue's shape. */
export interface CallRefusal {
  status: number;
  body: { errorCode: string; userMessage: string; httpStatus: number; traceId: string };
}

/** The per-call obligations: the token, the body's schema, the trace id, the branch, the duration. */
export async function createCallGuard() {
  // The API's own token service: HS256, each verified token remembered until it expires.
  const tokens = new TokenService(randomBytes(32).toString('hex'), 3600);
  const token = await tokens.issue({
    tenant: 'floor',
    subjectType: 'OPERATOR',
    subjectId: '1',
    scope: 'back',
  });
  /** The operator's branches (the product reads them from role assignments, through its read cache). */
  const branches = [1];
  const ajv = new Ajv({ allErrors: false });
  const validOperation = ajv.compile(operationSchema);
  const validCreation = ajv.compile(creationSchema);
  const duration = new Histogram({
    name: 'floor_http_request_duration_seconds',
    help: 'floor calls',
    labelNames: ['route', 'status_code'],
    registers: [new Registry()],
  });
  const refuse = (traceId: string, status: number, errorCode: string, userMessage: string): CallRefusal => ({
    status,
    body: { errorCode, userMessage, httpStatus: status, traceId },
  });
  return {
    token,
    /** Admits a call (its token and body), or says why not; the caller checks the branch it reads. */
    async admit(
      authorization: string | undefined,
      route: 'create' | 'operate',
      body: unknown,
    ): Promise<{ traceId: string; branches: number[] } | CallRefusal> {
      const traceId = randomUUID();
      const presented = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
      try {
        await tokens.verify(presented);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        return refuse(traceId, 401, error.code, error.message);
      }
      const valid = route === 'create' ? validCreation(body) : validOperation(body);
      if (!valid)
        return refuse(
          traceId,
          400,
          '0022',
          ajv.errorsText(route === 'create' ? validCreation.errors : validOperation.errors),
        );
      return { traceId, branches };
    },
    refuse,
    /** The call's duration, as the API's metrics record it. */
    observe(route: string, status: number, startedAt: bigint) {
      duration.observe(
        { route, status_code: String(status) },
        Number(process.hrtime.bigint() - startedAt) / 1e9,
      );
    },
  };
}
