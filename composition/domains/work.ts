import { RecurringTask } from '../../db/entities/RecurringTask.js';
import { TaskCategory } from '../../db/entities/TaskCategory.js';
import { TaskTemplate } from '../../db/entities/TaskTemplate.js';
import { taskCategoryRoutes } from '../../api/routes/back/task-categories.js';
import { taskTemplateRoutes } from '../../api/routes/back/task-templates.js';
import { taskRoutes } from '../../api/routes/back/tasks.js';
import { recurringTaskRoutes } from '../../api/routes/back/recurring-tasks.js';
import { createWorkActivities } from '../../activities/work.js';
import { workErrors } from '../../domain/work.errors.js';
import { Migration20261125005835_work } from '../../db/migrations/Migration20261125005835_work.js';
import { Migration20261125011320_work_recurring } from '../../db/migrations/Migration20261125011320_work_recurring.js';
import { Migration20261125033917_work_task_list_indexes } from '../../db/migrations/Migration20261125033917_work_task_list_indexes.js';
import { workSeed } from '../../db/seed/work.js';
import { defineDomain } from './domain.js';

/**
 * Tasks of the crews and the service desk: task categories, templates and the tasks themselves (the
 * Task table is the fleet domain's, which created it for the vehicles' bulk tasks; this domain extends it).
 */
export const workDomain = defineDomain({
  name: 'work',
  errors: workErrors,
  seed: workSeed,
  entities: [TaskCategory, TaskTemplate, RecurringTask],
  migrations: [
    Migration20261125005835_work,
    Migration20261125011320_work_recurring,
    Migration20261125033917_work_task_list_indexes,
  ],
  permissions: { operational: ['TASK_READ', 'TASK_MANAGE', 'TASK_CONFIGURE'] },
  // Template and recurring paths (/tasks/templates…, /tasks/recurring…) before /tasks/{id}: express matches in mount order.
  routes: [...taskCategoryRoutes, ...taskTemplateRoutes, ...recurringTaskRoutes, ...taskRoutes],
  activities: createWorkActivities,
  workflows: new URL('../../workflows/work.ts', import.meta.url),
  processes: [
    { workflowIdPrefix: 'recurring-task-due', notRunning: 'TK404', noun: 'recurring task due point' },
  ],
});
