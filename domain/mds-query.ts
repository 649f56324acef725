// Pure rules of MDS requests (docs/mds.md): version negotiation on the Accept header, the UTC hours of
// the historical endpoints, the two-week window of recent events, report months, and the JSON:API paging
// links. No I/O, no Node built-ins.
import { DomainError } from './errors.js';
import { MDS_MEDIA_TYPE } from './mds.js';

const HOUR_MS = 3_600_000;
/** How far back events/recent reaches (MDS: at most two weeks). */
export const RECENT_EVENTS_WINDOW_MS = 14 * 24 * HOUR_MS;

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

/** The media ranges of an Accept header (RFC 9110 12.5.1); malformed ranges are skipped. */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [type, ...rawParams] = part.split(';').map((piece) => piece.trim());
    if (!type || !/^[\w.+*-]+\/[\w.+*-]+$/.test(type)) continue;
    const params = new Map<string, string>();
    let q = 1;
    for (const raw of rawParams) {
      const separator = raw.indexOf('=');
      if (separator <= 0) continue;
      const name = raw.slice(0, separator).trim().toLowerCase();
      const value = raw
        .slice(separator + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (name === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
      else params.set(name, value);
    }
    ranges.push({ type: type.toLowerCase(), params, q });
  }
  return ranges;
}

/**
 * Whether an Accept header lets fleetflow answer with MDS 2.0 (docs/mds.md, "Versions"): a range of
 * `application/vnd.mds+json` with `version=2.0` accepts it; a request naming the MDS media type only with
 * other versions (or none) asks for what fleetflow does not serve, MDS406; without the MDS media type, an
 * absent header or one accepting what the endpoint answers (`answers`: JSON, or CSV for reports; their
 * wildcards and `*\/*`) gets 2.0.
 */
export function assertMdsVersionAccepted(accept: string | undefined, answers = ['application/json']): void {
  if (accept === undefined || accept.trim() === '') return;
  const ranges = mediaRanges(accept).filter((range) => range.q > 0);
  const mds = ranges.filter((range) => range.type === MDS_MEDIA_TYPE);
  if (mds.some((range) => range.params.get('version') === '2.0')) return;
  if (mds.length > 0)
    throw new DomainError(
      'MDS406',
      `this provider serves MDS version 2.0 only (Accept: ${MDS_MEDIA_TYPE};version=2.0)`,
    );
  const acceptable = (type: string) =>
    type === '*/*' || answers.some((answer) => type === answer || type === `${answer.split('/')[0]}/*`);
  if (ranges.some((range) => acceptable(range.type))) return;
  throw new DomainError(
    'MDS406',
    `answers are ${MDS_MEDIA_TYPE};version=2.0, which the Accept header refuses`,
  );
}

/**
 * The start of the UTC hour a `YYYY-MM-DDTHH` parameter names (MDS iso-dayhour): four-digit year from
 * 1970, an existing calendar day, hour 00–23; anything else is MDS400.
 */
export function parseMdsHour(text: string, name: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})$/.exec(text);
  if (match) {
    const [year, month, day, hour] = match.slice(1).map(Number) as [number, number, number, number];
    const at = Date.UTC(year, month - 1, day, hour);
    const date = new Date(at);
    if (
      year >= 1970 &&
      hour <= 23 &&
      date.getUTCFullYear() === year &&
      date.getUTCMonth() === month - 1 &&
      date.getUTCDate() === day
    )
      return date;
  }
  throw new DomainError('MDS400', `${name} must be an existing UTC hour YYYY-MM-DDTHH (1970 or later)`);
}

/** Refuses (MDS405) an hour that has not ended by `now`: MDS serves historical hours only. */
export function assertHourOver(hour: Date, now: Date): { from: Date; to: Date } {
  const to = new Date(hour.getTime() + HOUR_MS);
  if (to.getTime() > now.getTime())
    throw new DomainError('MDS405', `the hour ${hour.toISOString().slice(0, 13)} is not over yet`);
  return { from: hour, to };
}

/**
 * The window of events/recent (`start_time <= timestamp < end_time`, epoch milliseconds): start before
 * end, start at most two weeks before `now`, end not after `now`; otherwise MDS401.
 */
export function recentEventsWindow(startMs: number, endMs: number, now: Date): { from: Date; to: Date } {
  if (startMs >= endMs) throw new DomainError('MDS401', 'start_time must be before end_time');
  if (startMs < now.getTime() - RECENT_EVENTS_WINDOW_MS)
    throw new DomainError('MDS401', 'start_time must be within the last two weeks');
  if (endMs > now.getTime()) throw new DomainError('MDS401', 'end_time must not be in the future');
  return { from: new Date(startMs), to: new Date(endMs) };
}

/** The month of a report file name `YYYY-MM.csv` that is over by `now`; otherwise MDS407. */
export function reportMonth(fileName: string, now: Date): { from: Date; to: Date; label: string } {
  const match = /^(\d{4})-(\d{2})\.csv$/.exec(fileName);
  const year = Number(match?.[1]);
  const month = Number(match?.[2]);
  if (match && year >= 1970 && month >= 1 && month <= 12) {
    const from = new Date(Date.UTC(year, month - 1, 1));
    const to = new Date(Date.UTC(year, month, 1));
    if (to.getTime() <= now.getTime()) return { from, to, label: `${match[1]}-${match[2]}-01` };
  }
  throw new DomainError('MDS407', `no report ${fileName}: name a month that is over, as YYYY-MM.csv`);
}

/** JSON:API paging links (MDS models/response/paging.yaml) of page `page` (zero-based) of `total` items. */
export function pagingLinks(
  urlOfPage: (page: number) => string,
  page: number,
  size: number,
  total: number,
): { first: string; last: string; prev: string | null; next: string | null } {
  const lastPage = Math.max(0, Math.ceil(total / size) - 1);
  return {
    first: urlOfPage(0),
    last: urlOfPage(lastPage),
    prev: page > 0 ? urlOfPage(Math.min(page - 1, lastPage)) : null,
    next: page < lastPage ? urlOfPage(page + 1) : null,
  };
}
