// The `date-time` and `date` formats of both documents, checked as real calendar values: 2027-02-30,
// 24:00, a month 13 or the year 0000 (there is none: 1 BC is followed by AD 1) are validation errors,
// not whatever `Date` makes of them. Years run from 0001 to 9999; filters clamp what PostgreSQL cannot
// compare (`clampedInstant`), and business rules refuse windows far from now.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isRealDay(year: number, month: number, day: number): boolean {
  return (
    year >= FIRST_YEAR &&
    year <= LAST_YEAR &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month)
  );
}

/** A calendar date (`YYYY-MM-DD`) that exists. */
export function isRealDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && isRealDay(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** An RFC 3339 date-time that names a real instant: existing day, hour 0–23, minute 0–59, second 0–59 (60 at a minute's end), offset within ±23:59. */
export function isRealDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = match;
  return (
    isRealDay(Number(year), Number(month), Number(day)) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    // A leap second (:60) closes a minute: 2016-12-31T23:59:60Z happened.
    (Number(second) <= 59 || (Number(second) === 60 && Number(minute) === 59)) &&
    (offsetHours === undefined || (Number(offsetHours) <= 23 && Number(offsetMinutes) <= 59))
  );
}

/** The formats as express-openapi-validator takes them (ajv format definitions). */
export const realCalendarFormats = {
  'date-time': { type: 'string' as const, validate: isRealDateTime },
  date: { type: 'string' as const, validate: isRealDate },
};
