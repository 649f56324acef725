import { DataExport } from '../../db/entities/DataExport.js';
import { ExportRun } from '../../db/entities/ExportRun.js';
import { ExportDelivery } from '../../db/entities/ExportDelivery.js';
import { ExportWebhookAuthentication } from '../../db/entities/ExportWebhookAuthentication.js';
import { Migration20261125034407_exports } from '../../db/migrations/Migration20261125034407_exports.js';
import { exportsErrors } from '../../domain/exports.errors.js';
import { exportsSeed } from '../../db/seed/exports.js';
import { reportQueryRoutes } from '../../api/routes/back/report-queries.js';
import { exportRoutes } from '../../api/routes/back/exports.js';
import { exportRunRoutes } from '../../api/routes/back/export-runs.js';
import { exportDeliveryRoutes } from '../../api/routes/back/export-deliveries.js';
import { exportSettingRoutes } from '../../api/routes/back/export-settings.js';
import { createExportActivities } from '../../activities/exports.js';
import { loadConfig } from '../../platform/config.js';
import { NodemailerSender, type MailSender } from '../../platform/mail.js';
import { defineDomain } from './domain.js';

/**
 * The project's SMTP, read from the environment when the first mail is sent (SMTP_URL, else .eml files
 * in MAIL_OUTBOX_DIR), like the API's mail.
 */
function configuredMail(): MailSender {
  let sender: MailSender | undefined;
  return {
    send(message) {
      if (!sender) {
        const config = loadConfig();
        sender = new NodemailerSender({
          smtpUrl: config.smtpUrl,
          outboxDir: config.mailOutboxDir,
          from: config.mailFrom,
        });
      }
      return sender.send(message);
    },
  };
}

/**
 * Scheduled CSV exports (docs/exports.md): report queries over the read model, one-time and recurring
 * export definitions (a Temporal Schedule each), runs (`export:{tenant}:{runId}`) streaming CSV into the
 * object store, and their e-mail and Standard Webhooks notifications.
 */
export const exportsDomain = defineDomain({
  name: 'exports',
  errors: exportsErrors,
  seed: exportsSeed,
  entities: [DataExport, ExportRun, ExportDelivery, ExportWebhookAuthentication],
  migrations: [Migration20261125034407_exports],
  permissions: { operational: ['EXPORT_READ', 'EXPORT_MANAGE'] },
  routes: [
    ...reportQueryRoutes,
    ...exportSettingRoutes,
    ...exportRunRoutes,
    ...exportDeliveryRoutes,
    ...exportRoutes,
  ],
  activities: (deps) =>
    createExportActivities({
      orm: deps.orm,
      objectStore: deps.objectStore,
      mail: configuredMail(),
      publicBaseUrl: loadConfig().publicBaseUrl,
    }),
  workflows: new URL('../../workflows/export.ts', import.meta.url),
  processes: [
    { workflowIdPrefix: 'export', notRunning: 'EX405', noun: 'export run' },
    { workflowIdPrefix: 'export-notify', notRunning: 'EX406', noun: 'export notification' },
  ],
});
