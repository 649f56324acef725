import { workErrors } from '../../domain/work.errors.js';
import { defineDomain } from './domain.js';

/** Tasks, issues, files and field routes of the crews and the service desk: so far the spec's codes only. */
export const workDomain = defineDomain({
  name: 'work',
  errors: workErrors,
});
