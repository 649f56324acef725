// Scheduled CSV exports (pure rules, safe in workflows): the catalogue of report queries and their
// columns (docs and tests read it; db/export-queries.ts holds each column's SQL under the same names),
// the retention options, the schedule's cron syntax, the period a run covers, the webhook retry timing.
import { DomainError } from './errors.js';

/** What a column holds, as the CSV writes it (every value is text; empty for null). */
export type ReportColumnType =
  'integer' | 'decimal' | 'number' | 'string' | 'boolean' | 'timestamp' | 'date' | 'json';

/** One column of a report: its CSV header, what it holds and what it means. */
export interface ReportColumn {
  name: string;
  type: ReportColumnType;
  description: string;
}

/** One report query of the catalogue: a numeric id (the webhook payload's queryId), a key and its columns. */
export interface ReportQuery {
  id: number;
  key: string;
  name: string;
  description: string;
  /** What the period filters: the instant column it applies to; null for a snapshot (vehicles). */
  periodColumn: string | null;
  /** How the branch filter applies. */
  branchFilter: string;
  columns: readonly ReportColumn[];
}

const c = (name: string, type: ReportColumnType, description: string): ReportColumn => ({
  name,
  type,
  description,
});

const money = (name: string, what: string) =>
  c(name, 'decimal', `${what}, a decimal in the row's currency (e.g. 12.50)`);

/** The report queries operators export; ids are stable (the webhook payload's queryId). */
export const reportQueries = [
  {
    id: 1,
    key: 'rentals',
    name: 'Rentals',
    description: 'Every rental created in the period, with customer, vehicle, times, distance and price.',
    periodColumn: 'createdAt',
    branchFilter: 'the rental’s start branch',
    columns: [
      c('rentalId', 'integer', 'rental id'),
      c('state', 'string', 'rental state (RESERVED, ACTIVE, ENDED, CANCELED, EXPIRED …)'),
      c('branchId', 'integer', 'start branch id'),
      c('branchName', 'string', 'start branch name'),
      c('endBranchId', 'integer', 'branch the rental ended in'),
      c('customerId', 'integer', 'customer id'),
      c('customerEmail', 'string', 'customer e-mail'),
      c('vehicleId', 'integer', 'vehicle id'),
      c('vehicleCode', 'string', 'vehicle code'),
      c('licensePlate', 'string', 'vehicle licence plate'),
      c('vehicleCategory', 'string', 'vehicle category name'),
      c('createdAt', 'timestamp', 'created (ISO 8601, UTC)'),
      c('reservedAt', 'timestamp', 'reserved'),
      c('startedAt', 'timestamp', 'started'),
      c('endedAt', 'timestamp', 'ended'),
      c('durationMinutes', 'decimal', 'minutes from start to end'),
      c('distanceKm', 'decimal', 'odometer difference, km'),
      c('invoiceId', 'integer', 'final invoice id'),
      c('totalGross', 'decimal', 'final invoice total, gross'),
      c('currency', 'string', 'ISO 4217 currency of the invoice'),
      c('userGroupId', 'integer', 'business account (user group) id'),
      c('costCenterId', 'integer', 'cost centre id'),
      c('createdBy', 'string', 'who created it (subject)'),
    ],
  },
  {
    id: 2,
    key: 'bookings',
    name: 'Bookings',
    description: 'Every booking created in the period, with its window, approval, state and linked rental.',
    periodColumn: 'createdAt',
    branchFilter: 'the booking’s branch',
    columns: [
      c('bookingId', 'integer', 'booking id'),
      c('state', 'string', 'booking state'),
      c('approvalState', 'string', 'approval state'),
      c('type', 'string', 'booking type'),
      c('branchId', 'integer', 'branch id'),
      c('branchName', 'string', 'branch name'),
      c('endBranchId', 'integer', 'return branch id'),
      c('customerId', 'integer', 'customer id'),
      c('customerEmail', 'string', 'customer e-mail'),
      c('vehicleId', 'integer', 'vehicle id'),
      c('vehicleCategoryId', 'integer', 'booked vehicle category id'),
      c('startTime', 'timestamp', 'booked start'),
      c('endTime', 'timestamp', 'booked end'),
      c('pickedUpAt', 'timestamp', 'picked up'),
      c('returnedAt', 'timestamp', 'returned'),
      c('canceledAt', 'timestamp', 'canceled'),
      c('cancellationReason', 'string', 'why it was canceled'),
      c('rentalId', 'integer', 'rental started by the pickup'),
      c('invoiceId', 'integer', 'invoice id'),
      c('createdAt', 'timestamp', 'created'),
      c('createdBy', 'string', 'who created it (subject)'),
    ],
  },
  {
    id: 3,
    key: 'invoices',
    name: 'Invoices',
    description:
      'Invoices created in the period for rentals and bookings of the branches (totals, state, settlement).',
    periodColumn: 'createdAt',
    branchFilter: 'the branch of the invoice’s rental or booking',
    columns: [
      c('invoiceId', 'integer', 'invoice id'),
      c('number', 'string', 'invoice number'),
      c('type', 'string', 'invoice type'),
      c('state', 'string', 'invoice state'),
      c('branchId', 'integer', 'branch of the rental or booking'),
      c('businessUnitId', 'integer', 'business unit id'),
      c('customerId', 'integer', 'customer id'),
      c('rentalId', 'integer', 'rental id'),
      c('bookingId', 'integer', 'booking id'),
      c('currency', 'string', 'ISO 4217 currency'),
      money('totalNet', 'total net'),
      money('totalTax', 'total tax'),
      money('totalGross', 'total gross'),
      c('createdAt', 'timestamp', 'created'),
      c('issuedAt', 'timestamp', 'issued'),
      c('billedAt', 'timestamp', 'billed'),
      c('settledAt', 'timestamp', 'settled'),
      c('refundedInvoiceId', 'integer', 'the invoice this one refunds'),
    ],
  },
  {
    id: 4,
    key: 'invoice-line-items',
    name: 'Invoice line items',
    description: 'The lines of the invoices of the invoices report, one row per line.',
    periodColumn: 'invoiceCreatedAt',
    branchFilter: 'the branch of the invoice’s rental or booking',
    columns: [
      c('invoiceId', 'integer', 'invoice id'),
      c('invoiceNumber', 'string', 'invoice number'),
      c('lineId', 'integer', 'line id'),
      c('position', 'integer', 'position on the invoice'),
      c('code', 'string', 'line code'),
      c('description', 'string', 'line text'),
      c('group', 'string', 'line group'),
      c('phase', 'string', 'rental phase priced'),
      c('quantity', 'decimal', 'quantity'),
      c('unit', 'string', 'unit of the quantity'),
      c('unitPrice', 'decimal', 'price per unit'),
      money('net', 'net'),
      c('taxPercentage', 'decimal', 'tax rate, percent'),
      money('tax', 'tax'),
      money('gross', 'gross'),
      c('currency', 'string', 'ISO 4217 currency'),
      c('branchId', 'integer', 'branch of the rental or booking'),
      c('invoiceCreatedAt', 'timestamp', 'invoice created'),
    ],
  },
  {
    id: 5,
    key: 'payments',
    name: 'Payments',
    description: 'Payments created in the period for invoices of the branches’ rentals and bookings.',
    periodColumn: 'createdAt',
    branchFilter: 'the branch of the paid invoice’s rental or booking',
    columns: [
      c('paymentId', 'integer', 'payment id'),
      c('state', 'string', 'payment state'),
      c('purpose', 'string', 'what it pays'),
      c('invoiceId', 'integer', 'invoice id'),
      c('branchId', 'integer', 'branch of the rental or booking'),
      c('customerId', 'integer', 'customer id'),
      money('amount', 'amount'),
      c('currency', 'string', 'ISO 4217 currency'),
      c('gateway', 'string', 'payment gateway'),
      c('gatewayReference', 'string', 'the gateway’s reference'),
      c('attemptCount', 'integer', 'charge attempts'),
      c('failureCode', 'string', 'last failure code'),
      c('createdAt', 'timestamp', 'created'),
      c('paidAt', 'timestamp', 'paid'),
    ],
  },
  {
    id: 6,
    key: 'vehicles',
    name: 'Vehicles',
    description:
      'The branches’ vehicles as they are when the run executes (a snapshot: the period is ignored).',
    periodColumn: null,
    branchFilter: 'the vehicle’s branch',
    columns: [
      c('vehicleId', 'integer', 'vehicle id'),
      c('code', 'string', 'vehicle code'),
      c('licensePlate', 'string', 'licence plate'),
      c('branchId', 'integer', 'branch id'),
      c('branchName', 'string', 'branch name'),
      c('category', 'string', 'vehicle category name'),
      c('rentalState', 'string', 'rental state'),
      c('serviceState', 'string', 'service state'),
      c('powerState', 'string', 'power state'),
      c('stateOfCharge', 'number', 'state of charge, percent'),
      c('odometerKm', 'number', 'odometer, km'),
      c('latitude', 'number', 'last latitude'),
      c('longitude', 'number', 'last longitude'),
      c('locked', 'boolean', 'locked'),
      c('offline', 'boolean', 'offline'),
      c('lastReportAt', 'timestamp', 'last device report'),
      c('legalInspectionDate', 'date', 'next legal inspection'),
      c('createdAt', 'timestamp', 'created'),
    ],
  },
  {
    id: 7,
    key: 'telemetry',
    name: 'Telemetry',
    description: 'Telemetry reports of the branches’ vehicles received in the period.',
    periodColumn: 'receivedAt',
    branchFilter: 'the vehicle’s current branch',
    columns: [
      c('vehicleId', 'integer', 'vehicle id'),
      c('vehicleCode', 'string', 'vehicle code'),
      c('reportedAt', 'timestamp', 'reported by the device'),
      c('receivedAt', 'timestamp', 'received'),
      c('latitude', 'number', 'latitude'),
      c('longitude', 'number', 'longitude'),
      c('hdop', 'number', 'horizontal dilution of precision'),
      c('speedKmh', 'number', 'speed, km/h'),
      c('stateOfCharge', 'number', 'state of charge, percent'),
      c('odometerKm', 'number', 'odometer, km'),
      c('locked', 'boolean', 'locked'),
      c('charging', 'boolean', 'charging'),
      c('powerState', 'string', 'power state'),
      c('iotModuleLevel', 'number', 'IoT module battery level'),
    ],
  },
  {
    id: 8,
    key: 'events',
    name: 'Events',
    description: 'Events recorded in the branches in the period (type, subject, references, payload).',
    periodColumn: 'createdAt',
    branchFilter: 'the event’s branch',
    columns: [
      c('eventId', 'integer', 'event id'),
      c('type', 'string', 'event type'),
      c('createdAt', 'timestamp', 'recorded'),
      c('branchId', 'integer', 'branch id'),
      c('vehicleId', 'integer', 'vehicle id'),
      c('rentalId', 'integer', 'rental id'),
      c('bookingId', 'integer', 'booking id'),
      c('customerId', 'integer', 'customer id'),
      c('adminSubject', 'string', 'acting subject'),
      c('description', 'string', 'description'),
      c('payload', 'json', 'payload (JSON)'),
    ],
  },
  {
    id: 9,
    key: 'customers',
    name: 'Customers',
    description:
      'Customers with a rental or booking in the branches in the period (personal data: export with care).',
    periodColumn: 'lastActivityAt',
    branchFilter: 'the branches of the customer’s rentals and bookings',
    columns: [
      c('customerId', 'integer', 'customer id'),
      c('email', 'string', 'e-mail'),
      c('firstName', 'string', 'first name'),
      c('lastName', 'string', 'last name'),
      c('phoneNumber', 'string', 'phone number'),
      c('country', 'string', 'country (ISO 3166-1 alpha-2)'),
      c('city', 'string', 'city'),
      c('postcode', 'string', 'postcode'),
      c('emailVerified', 'boolean', 'e-mail verified'),
      c('phoneVerified', 'boolean', 'phone verified'),
      c('licenseVerificationState', 'string', 'driving licence verification'),
      c('paymentState', 'string', 'payment state'),
      c('blocked', 'boolean', 'blocked'),
      c('createdAt', 'timestamp', 'signed up'),
      c('rentals', 'integer', 'rentals created in the period in the branches'),
      c('bookings', 'integer', 'bookings created in the period in the branches'),
      c('lastActivityAt', 'timestamp', 'latest rental or booking creation in the period'),
    ],
  },
  {
    id: 10,
    key: 'tasks',
    name: 'Tasks',
    description: 'Tasks created in the period in the branches, with their object, assignee and completion.',
    periodColumn: 'createdAt',
    branchFilter: 'the task’s branch',
    columns: [
      c('taskId', 'integer', 'task id'),
      c('title', 'string', 'title'),
      c('taskState', 'string', 'state'),
      c('priority', 'string', 'priority'),
      c('category', 'string', 'category'),
      c('branchId', 'integer', 'branch id'),
      c('vehicleId', 'integer', 'vehicle id'),
      c('customerId', 'integer', 'customer id'),
      c('damageId', 'integer', 'damage id'),
      c('assignedTo', 'string', 'assignee'),
      c('createdAt', 'timestamp', 'created'),
      c('completedAt', 'timestamp', 'completed'),
      c('completedBy', 'string', 'completed by'),
      c('recurringTaskId', 'integer', 'recurring task it was created by'),
    ],
  },
] as const satisfies readonly ReportQuery[];

/** The key of a report query. */
export type ReportKey = (typeof reportQueries)[number]['key'];

/** The column names of one report. */
export type ReportColumnName<K extends ReportKey> = Extract<
  (typeof reportQueries)[number],
  { key: K }
>['columns'][number]['name'];

/** The report query with this id, or undefined. */
export function reportQueryById(id: number): (typeof reportQueries)[number] | undefined {
  return reportQueries.find((query) => query.id === id);
}

/** Retention options of an export file, in days (1 day, 1 week, 2 weeks, 1 month; 31 the default). */
export const retentionDayOptions = [1, 7, 14, 30, 31] as const;
export type RetentionDays = (typeof retentionDayOptions)[number];
export const defaultRetentionDays: RetentionDays = 31;

/** How long a pre-signed download address is valid (the spec: 7 days). */
export const presignedLinkSeconds = 7 * 86_400;

/** Export formats (CSV only, comma delimiter). */
export const exportFormats = ['CSV'] as const;

/** Most days one run may cover. */
export const maxPeriodDays = 366;

/** The state of an export definition: recurring ones can be paused (their schedule is paused). */
export const exportStates = ['ACTIVE', 'PAUSED'] as const;
export type ExportState = (typeof exportStates)[number];

/** A run's life: RUNNING → SUCCEEDED (one notification per target) or FAILED (none). */
export const exportRunStates = ['RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type ExportRunState = (typeof exportRunStates)[number];

/** Why a run exists. */
export const exportRunTriggers = ['ONE_TIME', 'SCHEDULE', 'MANUAL', 'REPLAY'] as const;
export type ExportRunTrigger = (typeof exportRunTriggers)[number];

/** Notification channels. */
export const deliveryChannels = ['EMAIL', 'WEBHOOK'] as const;
export type DeliveryChannel = (typeof deliveryChannels)[number];

/**
 * The outcome of one notification attempt: DELIVERED (2xx, or the SMTP server took the mail),
 * HTTP_ERROR (a 1xx/3xx/4xx/5xx answer: final, never retried), NETWORK_ERROR and TIMEOUT (retried on the
 * schedule below), INTERRUPTED (the worker died during the attempt: counted as a network error),
 * SMTP_ERROR (the mail server refused), SENDING (under way).
 */
export const deliveryOutcomes = [
  'SENDING',
  'DELIVERED',
  'HTTP_ERROR',
  'NETWORK_ERROR',
  'TIMEOUT',
  'INTERRUPTED',
  'SMTP_ERROR',
] as const;
export type DeliveryOutcome = (typeof deliveryOutcomes)[number];

/** Seconds before the retries of a webhook that could not be reached: 3 retries after the first attempt. */
export const webhookRetryDelaysSeconds = [10, 20, 40] as const;

/** How long one webhook attempt waits for the answer before it counts as a timeout. */
export const webhookTimeoutMs = 10_000;

/** Whether an attempt's outcome is retried (network errors and timeouts only). */
export function isRetriedOutcome(outcome: DeliveryOutcome): boolean {
  return outcome === 'NETWORK_ERROR' || outcome === 'TIMEOUT' || outcome === 'INTERRUPTED';
}

/** The `webhook-id` of a run's notification: unique per export run, the same on every attempt and replay. */
export function exportWebhookId(tenant: string, runId: number): string {
  return `export-run:${tenant}:${runId}`;
}

/** The webhook payload of a successful run (spec "Export webhook payload"). */
export interface ExportWebhookPayload {
  id: number;
  queryId: number;
  queryName: string;
  exportUrl: string;
  expirationDate: string;
}

/** The object key of a run's file: fixed by the run, so a retried upload overwrites the same object. */
export function exportObjectKey(tenant: string, runId: number): string {
  return `exports/${tenant}/${runId}.csv`;
}

/** The file name a download is saved as. */
export function exportFileName(reportKey: string, runId: number, periodTo: string | null): string {
  const day = periodTo ? periodTo.slice(0, 10) : 'snapshot';
  return `${reportKey}-${day}-run-${runId}.csv`;
}

// ---- Schedules: five-field cron in the export's time zone ----

const monthNames = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const dayNames = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const cronFields = [
  { name: 'minute', min: 0, max: 59, names: [] as string[], nameBase: 0 },
  { name: 'hour', min: 0, max: 23, names: [] as string[], nameBase: 0 },
  { name: 'day of month', min: 1, max: 31, names: [] as string[], nameBase: 0 },
  { name: 'month', min: 1, max: 12, names: monthNames, nameBase: 1 },
  { name: 'day of week', min: 0, max: 7, names: dayNames, nameBase: 0 },
];

/** Shorthands accepted besides five fields. */
export const cronShorthands: Readonly<Record<string, string>> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
};

function parseCronValue(text: string, field: (typeof cronFields)[number]): number | undefined {
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const index = field.names.indexOf(text.toUpperCase());
  return index < 0 ? undefined : index + field.nameBase;
}

function cronFieldError(field: string, part: string): never {
  throw new DomainError('EX102', `cron ${field} field: "${part}" is not understood`);
}

/**
 * The normalised five-field form of a schedule's cron expression (minute hour day-of-month month
 * day-of-week; numbers, names, `*`, ranges `a-b`, steps `/n`, lists `a,b`; or @hourly, @daily, @weekly,
 * @monthly). At most one run an hour: the minute field is one number. EX102 otherwise.
 */
export function normaliseCron(expression: string): string {
  const trimmed = expression.trim().replace(/\s+/g, ' ');
  const expanded = cronShorthands[trimmed.toLowerCase()] ?? trimmed;
  const parts = expanded.split(' ');
  if (parts.length !== 5 || expanded.length > 120)
    throw new DomainError(
      'EX102',
      'a schedule is five cron fields: minute hour day-of-month month day-of-week',
    );
  parts.forEach((part, i) => {
    const field = cronFields[i]!;
    for (const item of part.split(',')) {
      const [range, step, extra] = item.split('/');
      if (extra !== undefined || range === undefined || range === '') cronFieldError(field.name, part);
      if (step !== undefined && (!/^\d{1,2}$/.test(step) || Number(step) < 1 || Number(step) > field.max))
        cronFieldError(field.name, part);
      if (range === '*') continue;
      const bounds = range.split('-');
      if (bounds.length > 2) cronFieldError(field.name, part);
      const values = bounds.map((bound) => parseCronValue(bound, field));
      if (values.some((value) => value === undefined || value < field.min || value > field.max))
        cronFieldError(field.name, part);
      if (values.length === 2 && values[0]! > values[1]!) cronFieldError(field.name, part);
    }
  });
  if (!/^\d{1,2}$/.test(parts[0]!))
    throw new DomainError(
      'EX102',
      'at most one run an hour: the minute field must be a single minute (0-59)',
    );
  assertCronFires(parts);
  return parts.join(' ');
}

/** The longest each month gets (February 29 in leap years: such a schedule fires every four years). */
const longestMonthDays = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The values a checked cron field names (`*`, ranges, steps, lists). */
function cronFieldValues(part: string, field: (typeof cronFields)[number]): Set<number> {
  const values = new Set<number>();
  for (const item of part.split(',')) {
    const [range, step] = item.split('/') as [string, string | undefined];
    const [low, high] =
      range === '*'
        ? [field.min, field.max]
        : (() => {
            const bounds = range.split('-').map((bound) => parseCronValue(bound, field)!);
            return [bounds[0]!, bounds[1] ?? (step === undefined ? bounds[0]! : field.max)];
          })();
    for (let value = low; value <= high; value += Number(step ?? 1)) values.add(value);
  }
  return values;
}

/**
 * A schedule that can never fire is refused (EX102): with any day of the week, some named day of the
 * month must occur in some named month ("0 6 31 2 *" never does). With both restricted, cron fires on
 * either, so it fires.
 */
function assertCronFires(parts: readonly string[]): void {
  if (parts[4] !== '*' || parts[2] === '*') return;
  const days = cronFieldValues(parts[2]!, cronFields[2]!);
  const months = cronFieldValues(parts[3]!, cronFields[3]!);
  const fires = [...months].some((month) => [...days].some((day) => day <= longestMonthDays[month - 1]!));
  if (!fires)
    throw new DomainError(
      'EX102',
      `the schedule never fires: day ${[...days].join(',')} of the month does not occur in month ${[...months].join(',')}`,
    );
}

/** Whether the runtime knows an IANA time zone (pure: Intl is part of the language). */
export function isKnownTimeZoneName(timeZone: string): boolean {
  if (!timeZone || timeZone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

// ---- The period a run covers ----

/** An export's period: fixed instants, or the days before each run (recurring exports). */
export interface ExportPeriod {
  from?: string | null;
  to?: string | null;
  lastDays?: number | null;
}

const DAY_MS = 86_400_000;

/** Checks a period as given (EX101): fixed [from, to) with from < to, or lastDays; at most 366 days. */
export function assertPeriod(period: ExportPeriod, snapshot: boolean): void {
  const fixed = period.from != null || period.to != null;
  if (fixed && period.lastDays != null)
    throw new DomainError('EX101', 'give either from and to, or lastDays');
  if (!fixed && period.lastDays == null) {
    if (snapshot) return;
    throw new DomainError('EX101', 'a period is needed: from and to, or lastDays');
  }
  if (fixed) {
    if (period.from == null || period.to == null)
      throw new DomainError('EX101', 'a fixed period needs both from and to');
    const from = Date.parse(period.from);
    const to = Date.parse(period.to);
    if (!(from < to)) throw new DomainError('EX101', 'from must be before to');
    if (to - from > maxPeriodDays * DAY_MS)
      throw new DomainError('EX101', `a period covers at most ${maxPeriodDays} days`);
  }
}

/** The instants a run covers: the fixed period, or the `lastDays` days before the run's time. */
export function runPeriod(period: ExportPeriod, runAt: Date): { from: Date | null; to: Date | null } {
  if (period.from != null && period.to != null)
    return { from: new Date(period.from), to: new Date(period.to) };
  if (period.lastDays != null)
    return { from: new Date(runAt.getTime() - period.lastDays * DAY_MS), to: runAt };
  return { from: null, to: null };
}

/** When a run's file lapses: its completion plus the retention. */
export function expirationOf(completedAt: Date, retentionDays: number): Date {
  return new Date(completedAt.getTime() + retentionDays * DAY_MS);
}

/** The e-mail subject of a run's notification: organisation, report name, date and time. */
export function exportMailSubject(
  organisation: string,
  reportName: string,
  exportName: string,
  completedAt: Date,
  timeZone: string,
): string {
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: isKnownTimeZoneName(timeZone) ? timeZone : 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(completedAt);
  const name = exportName && exportName !== reportName ? `${reportName} (${exportName})` : reportName;
  return `${organisation}: ${name} export, ${when}`;
}
