// Error codes of the exports domain (EX*: the spec names the family "exports" but shows no code table, so
// every code here is the project's). Pure data, registered in the catalogue when imported; the
// registration (composition/domains/exports.ts) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The exports domain's catalogue entries; `when` says when the project answers a code. */
export const exportsErrors = defineErrorCodes(
  'exports',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    'EX100': { code: 'EX100', meaning: 'unknown report query', retryable: false, httpStatus: 422, source: 'project', when: 'an export body whose queryId is not in GET /report-queries' },
    'EX101': { code: 'EX101', meaning: 'invalid export period', retryable: false, httpStatus: 422, source: 'project', when: 'a period with from not before to, only one of them, both a fixed period and lastDays, none for a report that needs one, or longer than 366 days' },
    'EX102': { code: 'EX102', meaning: 'invalid export schedule', retryable: false, httpStatus: 422, source: 'project', when: 'a cron expression that is not five fields (or @hourly/@daily/@weekly/@monthly), has a value out of range, or would run more than once an hour' },
    'EX103': { code: 'EX103', meaning: 'unknown time zone', retryable: false, httpStatus: 422, source: 'project', when: 'a schedule whose timezone is no IANA time zone' },
    'EX104': { code: 'EX104', meaning: 'invalid notification target', retryable: false, httpStatus: 422, source: 'project', when: 'a webhookUrl that is not an absolute http(s) URL without credentials, or an e-mail address list with duplicates' },
    'EX403': { code: 'EX403', meaning: 'the export may not read one of its branches', retryable: false, httpStatus: 403, source: 'project', when: 'recorded on a run (errorCode) when the export\'s owner no longer holds EXPORT_READ on one of its branches when the run executes; the run fails and sends nothing' },
    'EX404': { code: 'EX404', meaning: 'export not found', retryable: false, httpStatus: 404, source: 'project', when: 'an export id that does not exist (or was deleted) in the tenant' },
    'EX405': { code: 'EX405', meaning: 'export run not found', retryable: false, httpStatus: 404, source: 'project', when: 'a run id that does not exist in the tenant, or a download address whose key does not match' },
    'EX406': { code: 'EX406', meaning: 'notification delivery not found', retryable: false, httpStatus: 404, source: 'project', when: 'a delivery id that is not one of the run\'s' },
    'EX407': { code: 'EX407', meaning: 'report query not found', retryable: false, httpStatus: 404, source: 'project', when: 'GET /report-queries/{queryId} with an unknown id' },
    'EX409': { code: 'EX409', meaning: 'a one-time export has no schedule', retryable: false, httpStatus: 409, source: 'project', when: 'pause or resume of an export without a schedule' },
    'EX410': { code: 'EX410', meaning: 'the export file has expired', retryable: false, httpStatus: 410, source: 'project', when: 'the download address called after the run\'s expirationDate (the file is deleted by the retention schedule)' },
    'EX411': { code: 'EX411', meaning: 'the export run has no file', retryable: false, httpStatus: 409, source: 'project', when: 'a download or a notification replay of a run that is still RUNNING or FAILED' },
    'EX412': { code: 'EX412', meaning: 'the export has no notification target of that kind', retryable: false, httpStatus: 409, source: 'project', when: 'a delivery replay whose target the export no longer has' },
    'EX500': { code: 'EX500', meaning: 'the export could not be written', retryable: true, httpStatus: 500, source: 'project', when: 'recorded on a run (errorCode) when the query or the upload kept failing through the activity\'s retries; replay the run' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    exports: typeof exportsErrors;
  }
}
