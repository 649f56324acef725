import { Issue } from '../../db/entities/Issue.js';
import { IssueComment } from '../../db/entities/IssueComment.js';
import { IssueInvoice } from '../../db/entities/IssueInvoice.js';
import { issueRoutes } from '../../api/routes/back/issues.js';
import { issueCommentRoutes } from '../../api/routes/back/issue-comments.js';
import { issueInvoiceRoutes } from '../../api/routes/back/issue-invoices.js';
import { issueErrors } from '../../domain/issues.errors.js';
import { Migration20261125031414_issues } from '../../db/migrations/Migration20261125031414_issues.js';
import { issueSeed } from '../../db/seed/issues.js';
import { defineDomain } from './domain.js';

/**
 * Issues of the service desk: fines, accidents, damaged vehicles…, their links, comments and the invoices
 * charged on them (through finance's invoices and payments). Damages and tasks link an issue.
 */
export const issueDomain = defineDomain({
  name: 'issues',
  errors: issueErrors,
  seed: issueSeed,
  entities: [Issue, IssueComment, IssueInvoice],
  migrations: [Migration20261125031414_issues],
  permissions: { operational: ['ISSUE_READ', 'ISSUE_MANAGE'] },
  routes: [...issueRoutes, ...issueCommentRoutes, ...issueInvoiceRoutes],
});
