// The SQL of each report query (domain/exports.ts names the reports and their columns; the types below
// make every report list exactly those columns, in that order). Every value is selected as text, so the
// CSV holds what PostgreSQL formatted: instants as ISO 8601 UTC with milliseconds, decimals exactly as
// stored, JSON as JSON text, booleans `true`/`false`; an empty text is selected as null (both are an
// empty field). Parameters: $1 tenant, $2 branch ids (with their descendants), $3 and $4 the period
// [from, to) (null: unbounded); `reportCopySql` writes them in as quoted literals for COPY.
import { reportQueries, type ReportColumnName, type ReportKey } from '../domain/exports.js';

/** An instant as ISO 8601 UTC text with milliseconds. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One report's SQL: each column's expression, the rows (from … where) and their order. */
interface ReportSql<K extends ReportKey> {
  columns: Record<ReportColumnName<K>, string>;
  /** `from … where …` using $1…$4; the period condition included. */
  from: string;
  orderBy: string;
}

/** Period bounds on an instant column: `$3`/`$4` null leave that side open. */
const inPeriod = (column: string) =>
  `($3::timestamptz is null or ${column} >= $3::timestamptz) and ($4::timestamptz is null or ${column} < $4::timestamptz)`;

/** The invoices of the branches' rentals and bookings (invoices without either are in no branch). */
const invoiceBranch = `coalesce(r.branch_id, bk.branch_id)`;

const rentals: ReportSql<'rentals'> = {
  columns: {
    rentalId: 'x.id',
    state: 'x.state',
    branchId: 'x.branch_id',
    branchName: 'b.name',
    endBranchId: 'x.end_branch_id',
    customerId: 'x.customer_id',
    customerEmail: 'cu.email',
    vehicleId: 'x.vehicle_id',
    vehicleCode: 'v.code',
    licensePlate: 'v.license_plate',
    vehicleCategory: 'vc.name',
    createdAt: iso('x.created_at'),
    reservedAt: iso('x.reserved_at'),
    startedAt: iso('x.started_at'),
    endedAt: iso('x.ended_at'),
    durationMinutes: `round((extract(epoch from (x.ended_at - x.started_at)) / 60)::numeric, 2)`,
    distanceKm: `round((x.end_odometer_km - x.start_odometer_km)::numeric, 3)`,
    invoiceId: 'x.invoice_id',
    totalGross: 'i.total_gross',
    currency: 'i.currency',
    userGroupId: 'x.user_group_id',
    costCenterId: 'x.cost_center_id',
    createdBy: 'x.created_by',
  },
  from: `from rental x
    join branch b on b.id = x.branch_id and b.tenant_id = x.tenant_id
    left join customer cu on cu.id = x.customer_id and cu.tenant_id = x.tenant_id
    left join vehicle v on v.id = x.vehicle_id and v.tenant_id = x.tenant_id
    left join vehicle_category vc on vc.id = v.category_id and vc.tenant_id = x.tenant_id
    left join invoice i on i.id = x.invoice_id and i.tenant_id = x.tenant_id
    where x.tenant_id = $1 and x.branch_id = any($2::int[]) and ${inPeriod('x.created_at')}`,
  orderBy: 'x.id',
};

const bookings: ReportSql<'bookings'> = {
  columns: {
    bookingId: 'x.id',
    state: 'x.state',
    approvalState: 'x.approval_state',
    type: 'x.type',
    branchId: 'x.branch_id',
    branchName: 'b.name',
    endBranchId: 'x.end_branch_id',
    customerId: 'x.customer_id',
    customerEmail: 'cu.email',
    vehicleId: 'x.vehicle_id',
    vehicleCategoryId: 'x.vehicle_category_id',
    startTime: iso('x.start_time'),
    endTime: iso('x.end_time'),
    pickedUpAt: iso('x.picked_up_at'),
    returnedAt: iso('x.returned_at'),
    canceledAt: iso('x.canceled_at'),
    cancellationReason: 'x.cancellation_reason',
    rentalId: 'x.rental_id',
    invoiceId: 'x.invoice_id',
    createdAt: iso('x.created_at'),
    createdBy: 'x.created_by',
  },
  from: `from booking x
    join branch b on b.id = x.branch_id and b.tenant_id = x.tenant_id
    left join customer cu on cu.id = x.customer_id and cu.tenant_id = x.tenant_id
    where x.tenant_id = $1 and x.branch_id = any($2::int[]) and ${inPeriod('x.created_at')}`,
  orderBy: 'x.id',
};

const invoiceFrom = `from invoice x
    left join rental r on r.id = x.rental_id and r.tenant_id = x.tenant_id
    left join booking bk on bk.id = x.booking_id and bk.tenant_id = x.tenant_id
    where x.tenant_id = $1 and ${invoiceBranch} = any($2::int[]) and ${inPeriod('x.created_at')}`;

const invoices: ReportSql<'invoices'> = {
  columns: {
    invoiceId: 'x.id',
    number: 'x.number',
    type: 'x.type',
    state: 'x.state',
    branchId: invoiceBranch,
    businessUnitId: 'x.business_unit_id',
    customerId: 'x.customer_id',
    rentalId: 'x.rental_id',
    bookingId: 'x.booking_id',
    currency: 'x.currency',
    totalNet: 'x.total_net',
    totalTax: 'x.total_tax',
    totalGross: 'x.total_gross',
    createdAt: iso('x.created_at'),
    issuedAt: iso('x.issued_at'),
    billedAt: iso('x.billed_at'),
    settledAt: iso('x.settled_at'),
    refundedInvoiceId: 'x.refunded_invoice_id',
  },
  from: invoiceFrom,
  orderBy: 'x.id',
};

const invoiceLineItems: ReportSql<'invoice-line-items'> = {
  columns: {
    invoiceId: 'x.id',
    invoiceNumber: 'x.number',
    lineId: 'l.id',
    position: 'l.position',
    code: 'l.code',
    description: 'l.description',
    group: 'l.group',
    phase: 'l.phase',
    quantity: 'l.quantity',
    unit: 'l.unit',
    unitPrice: 'l.unit_price',
    net: 'l.net',
    taxPercentage: 'l.tax_percentage',
    tax: 'l.tax',
    gross: 'l.gross',
    currency: 'x.currency',
    branchId: invoiceBranch,
    invoiceCreatedAt: iso('x.created_at'),
  },
  from: invoiceFrom.replace(
    'from invoice x',
    'from invoice x join invoice_line l on l.invoice_id = x.id and l.tenant_id = x.tenant_id',
  ),
  orderBy: 'x.id, l.position, l.id',
};

const payments: ReportSql<'payments'> = {
  columns: {
    paymentId: 'p.id',
    state: 'p.state',
    purpose: 'p.purpose',
    invoiceId: 'p.invoice_id',
    branchId: invoiceBranch,
    customerId: 'p.customer_id',
    amount: 'p.amount',
    currency: 'p.currency',
    gateway: 'p.gateway',
    gatewayReference: 'p.gateway_reference',
    attemptCount: 'p.attempt_count',
    failureCode: 'p.failure_code',
    createdAt: iso('p.created_at'),
    paidAt: iso('p.paid_at'),
  },
  from: `from payment p
    join invoice x on x.id = p.invoice_id and x.tenant_id = p.tenant_id
    left join rental r on r.id = x.rental_id and r.tenant_id = x.tenant_id
    left join booking bk on bk.id = x.booking_id and bk.tenant_id = x.tenant_id
    where p.tenant_id = $1 and ${invoiceBranch} = any($2::int[]) and ${inPeriod('p.created_at')}`,
  orderBy: 'p.id',
};

const vehicles: ReportSql<'vehicles'> = {
  columns: {
    vehicleId: 'x.id',
    code: 'x.code',
    licensePlate: 'x.license_plate',
    branchId: 'x.branch_id',
    branchName: 'b.name',
    category: 'vc.name',
    rentalState: 'x.rental_state',
    serviceState: 'x.service_state_v2',
    powerState: 'x.power_state',
    stateOfCharge: 'x.state_of_charge',
    odometerKm: 'x.odometer_km',
    latitude: 'x.latitude',
    longitude: 'x.longitude',
    locked: 'x.locked',
    offline: 'x.offline',
    lastReportAt: iso('x.last_report_at'),
    legalInspectionDate: 'x.legal_inspection_date',
    createdAt: iso('x.created_at'),
  },
  from: `from vehicle x
    join branch b on b.id = x.branch_id and b.tenant_id = x.tenant_id
    left join vehicle_category vc on vc.id = x.category_id and vc.tenant_id = x.tenant_id
    where x.tenant_id = $1 and x.branch_id = any($2::int[]) and ($3::timestamptz is null or true) and ($4::timestamptz is null or true)`,
  orderBy: 'x.id',
};

const telemetry: ReportSql<'telemetry'> = {
  columns: {
    vehicleId: 't.vehicle_id',
    vehicleCode: 'v.code',
    reportedAt: iso('t.reported_at'),
    receivedAt: iso('t.received_at'),
    latitude: 't.latitude',
    longitude: 't.longitude',
    hdop: 't.hdop',
    speedKmh: 't.speed_kmh',
    stateOfCharge: 't.state_of_charge',
    odometerKm: 't.odometer_km',
    locked: 't.locked',
    charging: 't.charging',
    powerState: 't.power_state',
    iotModuleLevel: 't.iot_module_level',
  },
  from: `from vehicle_telemetry t
    join vehicle v on v.id = t.vehicle_id and v.tenant_id = t.tenant_id
    where t.tenant_id = $1 and v.branch_id = any($2::int[]) and ${inPeriod('t.received_at')}`,
  orderBy: 't.received_at, t.id',
};

const events: ReportSql<'events'> = {
  columns: {
    eventId: 'x.id',
    type: 'x.type',
    createdAt: iso('x.created_at'),
    branchId: 'x.branch_id',
    vehicleId: 'x.vehicle_id',
    rentalId: 'x.rental_id',
    bookingId: 'x.booking_id',
    customerId: 'x.customer_id',
    adminSubject: 'x.admin_subject',
    description: 'x.description',
    payload: 'x.payload',
  },
  from: `from event x where x.tenant_id = $1 and x.branch_id = any($2::int[]) and ${inPeriod('x.created_at')}`,
  orderBy: 'x.id',
};

const customers: ReportSql<'customers'> = {
  columns: {
    customerId: 'cu.id',
    email: 'cu.email',
    firstName: 'cu.first_name',
    lastName: 'cu.last_name',
    phoneNumber: 'cu.phone_number',
    country: 'cu.country',
    city: 'cu.city',
    postcode: 'cu.postcode',
    emailVerified: 'cu.email_is_verified',
    phoneVerified: 'cu.phone_is_verified',
    licenseVerificationState: 'cu.license_verification_state',
    paymentState: 'cu.payment_state',
    blocked: 'cu.is_blocked',
    createdAt: iso('cu.created_at'),
    rentals: 'a.rentals',
    bookings: 'a.bookings',
    lastActivityAt: iso('a.last_activity_at'),
  },
  from: `from (
      select customer_id, sum(rentals) as rentals, sum(bookings) as bookings, max(at) as last_activity_at from (
        select customer_id, 1 as rentals, 0 as bookings, created_at as at from rental
         where tenant_id = $1 and branch_id = any($2::int[]) and customer_id is not null and ${inPeriod('created_at')}
        union all
        select customer_id, 0, 1, created_at from booking
         where tenant_id = $1 and branch_id = any($2::int[]) and customer_id is not null and ${inPeriod('created_at')}
      ) activity group by customer_id
    ) a
    join customer cu on cu.id = a.customer_id and cu.tenant_id = $1`,
  orderBy: 'cu.id',
};

const tasks: ReportSql<'tasks'> = {
  columns: {
    taskId: 'x.id',
    title: 'x.title',
    taskState: 'x.task_state',
    priority: 'x.priority',
    category: 'coalesce(tc.name, x.category)',
    branchId: 'x.branch_id',
    vehicleId: 'x.vehicle_id',
    customerId: 'x.customer_id',
    damageId: 'x.damage_id',
    assignedTo: 'x.assigned_to',
    createdAt: iso('x.created_at'),
    completedAt: iso('x.completed_at'),
    completedBy: 'x.completed_by',
    recurringTaskId: 'x.recurring_task_id',
  },
  from: `from task x
    left join task_category tc on tc.id = x.category_id and tc.tenant_id = x.tenant_id
    where x.tenant_id = $1 and x.branch_id = any($2::int[]) and ${inPeriod('x.created_at')}`,
  orderBy: 'x.id',
};

const sqlByKey: { [K in ReportKey]: ReportSql<K> } = {
  rentals,
  bookings,
  invoices,
  'invoice-line-items': invoiceLineItems,
  payments,
  vehicles,
  telemetry,
  events,
  customers,
  tasks,
};

/**
 * The report's select statement, every column as text (an empty text as null, so both are an empty
 * CSV field), in the catalogue's order ($1…$4 as above).
 */
export function reportSql(key: ReportKey): string {
  const report = reportQueries.find((query) => query.key === key)!;
  const sql = sqlByKey[key] as ReportSql<ReportKey>;
  const columns = sql.columns as Record<string, string>;
  const select = report.columns
    .map((column) => `nullif((${columns[column.name]})::text, '') as "${column.name}"`)
    .join(', ');
  return `select ${select} ${sql.from} order by ${sql.orderBy}`;
}

/** The parameters of a report's statement: tenant, branches, period bounds. */
export interface ReportParameters {
  tenant: string;
  branchIds: readonly number[];
  from: Date | null;
  to: Date | null;
}

/**
 * `COPY (the report's statement) TO STDOUT (FORMAT csv)` with its parameters written in (COPY takes no
 * bind parameters): the tenant and the period bounds as literals quoted by `quoteLiteral` (the driver's
 * `escapeLiteral`), the branch ids as checked integers. Each `$n` of the statement is replaced in one
 * pass, so nothing a value contains is read as SQL or as another placeholder.
 */
export function reportCopySql(
  key: ReportKey,
  parameters: ReportParameters,
  quoteLiteral: (value: string) => string,
): string {
  for (const id of parameters.branchIds)
    if (!Number.isSafeInteger(id)) throw new TypeError(`branch id ${String(id)} is not an integer`);
  const instant = (at: Date | null): string => {
    if (at === null) return 'null';
    if (Number.isNaN(at.getTime())) throw new TypeError('an invalid period bound');
    return quoteLiteral(at.toISOString());
  };
  const literals: Record<string, string> = {
    $1: quoteLiteral(parameters.tenant),
    $2: `array[${parameters.branchIds.join(',')}]`,
    $3: instant(parameters.from),
    $4: instant(parameters.to),
  };
  const select = reportSql(key).replace(/\$[1-4](?![0-9])/g, (placeholder) => literals[placeholder]!);
  return `copy (${select}) to stdout (format csv)`;
}

/** The catalogue's column names of a report, in CSV order. */
export function reportColumnNames(key: ReportKey): string[] {
  return reportQueries.find((query) => query.key === key)!.columns.map((column) => column.name);
}
