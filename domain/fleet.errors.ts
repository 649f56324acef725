// Error codes of the fleet domain: vehicles, categories, IoT modules, notes and every vehicle command.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The fleet domain's catalogue entries; `when` says when the project answers a code. */
export const fleetErrors = defineErrorCodes(
  'fleet',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Common codes of otherwise unshown tables (U6XX terms, R, P, V)
    'V404': { code: 'V404', meaning: 'vehicle not found', retryable: false, httpStatus: 404, source: 'spec' },
    // Other
    'N404': { code: 'N404', meaning: 'note not found', retryable: false, httpStatus: 404, source: 'spec' },
    'MO100': { code: 'MO100', meaning: 'module externalId exists', retryable: false, httpStatus: 409, source: 'spec' },
    'MO101': { code: 'MO101', meaning: 'module name exists', retryable: false, httpStatus: 409, source: 'spec' },
    'MO102': { code: 'MO102', meaning: 'module ICCID exists', retryable: false, httpStatus: 409, source: 'spec' },
    'MO103': { code: 'MO103', meaning: 'module missing', retryable: false, httpStatus: 404, source: 'spec' },
    'MO104': { code: 'MO104', meaning: 'module may only move from retired to unassigned', retryable: false, httpStatus: 409, source: 'spec' },
    'MO105': { code: 'MO105', meaning: 'module externalId or module id needed', retryable: false, httpStatus: 400, source: 'spec' },
    // Project-defined: entities and rental/vehicle operations
    'V409': { code: 'V409', meaning: 'a command is already in progress for this vehicle', retryable: true, httpStatus: 409, source: 'project', when: 'execute-command while another command runs' },
    'V410': { code: 'V410', meaning: 'vehicle integration client retired', retryable: false, httpStatus: 410, source: 'project', when: 'command to a vehicle whose integration client is retired' },
    'V502': { code: 'V502', meaning: 'vehicle refused the command or reported an error', retryable: false, httpStatus: 502, source: 'project', when: 'device answered with a failure (`failureReason`)' },
    'V504': { code: 'V504', meaning: 'vehicle did not answer in time', retryable: true, httpStatus: 504, source: 'project', when: 'a command timed out (after its retry); an offline vehicle answers V103 at once instead' },
    'V100': { code: 'V100', meaning: 'a vehicle with this code exists', retryable: false, httpStatus: 409, source: 'project', when: 'POST /vehicles with a code in use' },
    'V101': { code: 'V101', meaning: 'only a queued command can be cancelled', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /vehicles/{id}/activity/{commandId} for a command already sent' },
    'V102': { code: 'V102', meaning: 'the vehicle category named in the body does not exist', retryable: false, httpStatus: 422, source: 'project', when: 'POST /vehicles or PATCH of a vehicle with an unknown `categoryId` (a missing path resource stays 404)' },
    'V103': { code: 'V103', meaning: 'the vehicle is offline: the command was not sent; send it ASYNC with queueIfOffline to deliver it when the vehicle is back', retryable: true, httpStatus: 409, source: 'project', when: 'a SYNC command (or ASYNC without `queueIfOffline`), debug line, configured operation with a command step, shortcut or updateState to an offline vehicle; nothing is sent' },
    'VC404': { code: 'VC404', meaning: 'vehicle category not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown categoryId' },
    'VC100': { code: 'VC100', meaning: 'vehicle category in use (vehicles, child categories, pricing assignments)', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE of a category that vehicles, child categories or pricing use' },
    'VC101': { code: 'VC101', meaning: 'vehicle category name exists', retryable: false, httpStatus: 409, source: 'project', when: 'create/rename to a name in use' },
    'VC102': { code: 'VC102', meaning: 'invalid vehicle category configuration or parent', retryable: false, httpStatus: 400, source: 'project', when: 'unknown or ill-typed configuration key, parent cycle' },
    'VH404': { code: 'VH404', meaning: 'vehicle action, activity or composite activity not found', retryable: false, httpStatus: 404, source: 'project', when: 'execute-action/-activity/-composite-activity with an unknown id (or one of another kind)' },
    'MO106': { code: 'MO106', meaning: 'module is associated with another vehicle', retryable: false, httpStatus: 409, source: 'project', when: 'associating a module that another vehicle holds (remove it there first)' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    fleet: typeof fleetErrors;
  }
}
