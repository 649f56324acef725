// Error codes of the work domain: tasks and issues (files and their access codes are the files domain's; field routes' RO* are the maintenance domain's).
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The work domain's catalogue entries; `when` says when the project answers a code. */
export const workErrors = defineErrorCodes(
  'work',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Issues, fines, files
    'F207': { code: 'F207', meaning: 'only collection invoices can be set paid externally', retryable: false, httpStatus: 409, source: 'spec' },
    // Project-defined: tasks, task categories and templates (TK*)
    'TK404': { code: 'TK404', meaning: 'task not found', retryable: false, httpStatus: 404, source: 'project', when: 'a task id that does not exist in the tenant' },
    'TK100': { code: 'TK100', meaning: 'the task cannot move to that state', retryable: false, httpStatus: 409, source: 'project', when: 'PATCH /tasks/{id} or PATCH /tasks/complete with a move the task state table does not allow (docs/work.md)' },
    'TK101': { code: 'TK101', meaning: 'the task category named does not exist', retryable: false, httpStatus: 422, source: 'project', when: 'a task or template body with an unknown categoryId' },
    'TK102': { code: 'TK102', meaning: 'the task object named does not exist or is not in the task\'s branch', retryable: false, httpStatus: 422, source: 'project', when: 'a taskObject vehicleId, damageId, guserId or vehicleCategoryId unknown in the tenant, or a vehicle or damage outside the task\'s branch' },
    'TK103': { code: 'TK103', meaning: 'the task template named does not exist', retryable: false, httpStatus: 422, source: 'project', when: 'POST /tasks with an unknown templateId' },
    'TK104': { code: 'TK104', meaning: 'the branch has no vehicles to create tasks for', retryable: false, httpStatus: 422, source: 'project', when: 'POST /tasks?forAllVehiclesByBranch=true on a branch without vehicles' },
    'TK105': { code: 'TK105', meaning: 'a task needs a title (or a template giving one)', retryable: false, httpStatus: 422, source: 'project', when: 'POST /tasks without taskData.title and without a templateId' },
    'TK106': { code: 'TK106', meaning: 'one task per vehicle of the branch takes no vehicle', retryable: false, httpStatus: 422, source: 'project', when: 'POST /tasks?forAllVehiclesByBranch=true with taskObject.vehicleId' },
    'TK107': { code: 'TK107', meaning: 'endDate must follow startDate, at most 366 days later', retryable: false, httpStatus: 422, source: 'project', when: 'the completed-tasks reads with an empty, reversed or too long window' },
    'TK108': { code: 'TK108', meaning: 'unknown time zone', retryable: false, httpStatus: 422, source: 'project', when: 'a recurring task whose recurrence.timezone is no IANA time zone' },
    'TK109': { code: 'TK109', meaning: 'a recurring task needs a trigger, and usage triggers need a vehicle', retryable: false, httpStatus: 422, source: 'project', when: 'a recurring task without recurrence, everyRentals and everyKm, or with everyRentals/everyKm but no taskObject.vehicleId' },
    'TKC404': { code: 'TKC404', meaning: 'task category not found', retryable: false, httpStatus: 404, source: 'project', when: 'a task category id that does not exist in the tenant' },
    'TKC409': { code: 'TKC409', meaning: 'the task category is in use', retryable: false, httpStatus: 409, source: 'project', when: 'DELETE /task-categories/{id} while tasks, recurring tasks or templates name it' },
    'TKC410': { code: 'TKC410', meaning: 'a task category with that name exists', retryable: false, httpStatus: 409, source: 'project', when: 'creating or renaming a category to a name another category has (case ignored)' },
    'TKT404': { code: 'TKT404', meaning: 'task template not found', retryable: false, httpStatus: 404, source: 'project', when: 'a task template id that does not exist in the tenant' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    work: typeof workErrors;
  }
}
