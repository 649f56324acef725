// The organisation's authentication of export webhooks (docs/exports.md, spec "Authentication" 5-6):
// enabled or not, the x-api-key sent, and the signing secret (`whsec_` + base64 of 32 bytes) receivers
// verify webhook-signature with. The secret is shown once, when it is issued or rotated, and kept in its
// own table (never a tenant setting). Tenant-wide: EXPORT_MANAGE on every root branch.
import { Type } from '@sinclair/typebox';
import { ExportWebhookAuthentication } from '../../../db/entities/ExportWebhookAuthentication.js';
import { newWebhookApiKey, newWebhookSecret } from '../../../platform/standard-webhooks.js';
import { authorizeTenantWide } from '../../authorization.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Nullable, Str } from '../../kernel/schemas.js';
import { EXPORT_MANAGE, tags } from './export-representation.js';

const Authentication = component(
  'ExportWebhookAuthentication',
  Type.Object(
    {
      enabled: Type.Boolean({
        description: 'When true, webhooks carry x-api-key, webhook-timestamp and webhook-signature.',
      }),
      apiKeyLast4: Nullable(Type.String({ description: 'The last 4 characters of x-api-key.' })),
      secretRotatedAt: Nullable(DateTime({ description: 'When the signing secret was issued.' })),
    },
    { additionalProperties: false },
  ),
);

const IssuedAuthentication = component(
  'IssuedExportWebhookAuthentication',
  Type.Object(
    {
      ...Authentication.properties,
      apiKey: Nullable(Type.String({ description: 'x-api-key; shown when set or generated.' })),
      signingSecret: Nullable(
        Type.String({ description: '`whsec_…`: shown only in the answer that issued it.' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const toDto = (row: ExportWebhookAuthentication | null) => ({
  enabled: row?.enabled ?? false,
  apiKeyLast4: row ? row.apiKey.slice(-4) : null,
  secretRotatedAt: row ? row.secretRotatedAt.toISOString() : null,
});

const tenantWide =
  'tenant-wide: the handler requires EXPORT_MANAGE on every root branch (AUTH002 otherwise).';
const path = '/export-settings/webhook-authentication';

export const getExportWebhookAuthentication = defineRoute({
  operationId: 'getExportWebhookAuthentication',
  method: 'get',
  path,
  interface: 'back',
  summary: 'Whether export webhooks are authenticated (never the secret)',
  tags,
  access: { anyCaller: tenantWide },
  responses: { 200: { description: 'The authentication settings', schema: Authentication } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, EXPORT_MANAGE);
    return ok(toDto(await ctx.em.findOne(ExportWebhookAuthentication, {})));
  },
});

/** The row, created with a generated API key and a new secret when missing (answers whether it was). */
async function rowOf(ctx: RouteContext): Promise<{ row: ExportWebhookAuthentication; issued: boolean }> {
  const row = await ctx.em.findOne(ExportWebhookAuthentication, {});
  if (row) return { row, issued: false };
  return {
    row: ctx.em.create(ExportWebhookAuthentication, {
      apiKey: newWebhookApiKey(),
      signingSecret: newWebhookSecret(),
    }),
    issued: true,
  };
}

export const setExportWebhookAuthentication = defineRoute({
  operationId: 'setExportWebhookAuthentication',
  method: 'put',
  path,
  interface: 'back',
  summary: 'Enable or disable authenticated export webhooks; set the x-api-key',
  description:
    'The first call issues the signing secret (shown in this answer only) and, unless apiKey is given, generates the API key. Later calls change enabled and apiKey; rotate the secret with POST …/rotate-secret.',
  tags,
  body: component(
    'ExportWebhookAuthenticationInput',
    Type.Object(
      {
        enabled: Type.Boolean(),
        apiKey: Type.Optional(
          Str(200, {
            minLength: 16,
            pattern: '^[\\x21-\\x7e]+$',
            description: 'Visible ASCII, 16-200 characters.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  access: { anyCaller: tenantWide },
  responses: {
    200: { description: 'The settings; apiKey and signingSecret when issued', schema: IssuedAuthentication },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, EXPORT_MANAGE);
    const { row, issued } = await rowOf(ctx);
    row.enabled = ctx.body.enabled;
    if (ctx.body.apiKey) row.apiKey = ctx.body.apiKey;
    row.updatedAt = new Date();
    await ctx.em.flush();
    return ok({
      ...toDto(row),
      apiKey: issued || ctx.body.apiKey ? row.apiKey : null,
      signingSecret: issued ? row.signingSecret : null,
    });
  },
});

export const rotateExportWebhookSecret = defineRoute({
  operationId: 'rotateExportWebhookSecret',
  method: 'post',
  path: `${path}/rotate-secret`,
  interface: 'back',
  summary: 'Issue a new signing secret (the old one stops signing at once)',
  tags,
  access: { anyCaller: tenantWide },
  responses: { 200: { description: 'The new secret, shown once', schema: IssuedAuthentication } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, EXPORT_MANAGE);
    const { row, issued } = await rowOf(ctx);
    if (!issued) {
      row.signingSecret = newWebhookSecret();
      row.secretRotatedAt = new Date();
      row.updatedAt = new Date();
    }
    await ctx.em.flush();
    return ok({ ...toDto(row), apiKey: issued ? row.apiKey : null, signingSecret: row.signingSecret });
  },
});

export const exportSettingRoutes = [
  getExportWebhookAuthentication,
  setExportWebhookAuthentication,
  rotateExportWebhookSecret,
];
