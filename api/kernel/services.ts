// The application's services every handler may use, given to the kernel when the routes are mounted.
import type { Client } from '@temporalio/client';
import type { MikroORM } from '../../db/orm.js';
import type { PermissionCatalogue } from '../../domain/permissions.js';
import type { MailSender } from '../../platform/mail.js';
import type { SmsSender } from '../../platform/sms.js';
import type { PaymentGateways } from '../../platform/payment-gateway/port.js';
import type { ObjectStore } from '../../platform/object-store.js';
import type { TokenService } from '../auth.js';
import type { RateLimits } from './rate-limits.js';

export interface ApiServices {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  tokens: TokenService;
  tokenTtlSeconds: number;
  permissions: PermissionCatalogue;
  /** Outgoing e-mail and SMS (customer codes and links). */
  mail: MailSender;
  sms: SmsSender;
  /** Lifetime of customer refresh tokens. */
  refreshTokenTtlSeconds: number;
  /** The payment gateway adapters (webhooks, refunds, the sandbox's challenges). */
  paymentGateways: PaymentGateways;
  /** Where uploaded files (and exports) are kept; downloads are pre-signed links into it. */
  objectStore: ObjectStore;
  /** Lifetime of the pre-signed download links of files. */
  fileLinkTtlSeconds: number;
  /** The per-caller counters of rate-limited routes (`rateLimit` of a declaration). */
  rateLimits: RateLimits;
}
