// Request-signing keys of the tenant's apps (docs/customers.md, "Request signing"): operators issue,
// rotate and revoke the secret an app signs sign-up and sign-in requests with. The spec shows only the
// signing errors (SE100–SE102); these endpoints are the project's. Keys are tenant-wide, so managing them
// needs APP_SIGNING_KEY_MANAGE on every root branch of the tenant (a tenant administrator).
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ApiClient } from '../../../db/entities/ApiClient.js';
import { AppSigningKey } from '../../../db/entities/AppSigningKey.js';
import { authorizeTenantWide } from '../../authorization.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Str } from '../../kernel/schemas.js';

const MANAGE = 'APP_SIGNING_KEY_MANAGE';

const SigningKey = component(
  'AppSigningKey',
  Type.Object(
    {
      id: Id(),
      appId: Type.String({ description: 'The app: the client id of an API client with the front scope.' }),
      active: Type.Boolean(),
      rotatedAt: DateTime({ description: 'When the current secret was issued.' }),
    },
    { additionalProperties: false },
  ),
);

const IssuedSigningKey = component(
  'IssuedAppSigningKey',
  Type.Object(
    {
      ...SigningKey.properties,
      secret: Type.String({
        description:
          'base64 of 32 random bytes; shown only in this answer. Apps sign with it (docs/customers.md).',
      }),
    },
    { additionalProperties: false },
  ),
);

const toKey = (key: AppSigningKey) => ({
  id: key.id,
  appId: key.appId,
  active: key.active,
  rotatedAt: key.rotatedAt.toISOString(),
});

const newSecret = () => randomBytes(32).toString('base64');

async function keyOrFail(ctx: RouteContext<{ keyId: number }>): Promise<AppSigningKey> {
  const key = await ctx.em.findOne(AppSigningKey, ctx.params.keyId);
  if (!key) throw new DomainError('SK404');
  return key;
}

const tenantAdministration =
  'tenant-wide: the handler requires APP_SIGNING_KEY_MANAGE on every root branch (AUTH002 otherwise).';

/** `GET /app-signing-keys`: which apps can sign, without their secrets. */
export const listAppSigningKeys = defineRoute({
  operationId: 'listAppSigningKeys',
  method: 'get',
  path: '/app-signing-keys',
  interface: 'back',
  summary: 'Request-signing keys of the tenant’s apps',
  tags: ['Customers'],
  access: { anyCaller: tenantAdministration },
  responses: { 200: { description: 'Keys (never their secrets)', schema: Type.Array(SigningKey) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const keys = await ctx.em.find(AppSigningKey, {}, { orderBy: { appId: 'asc' } });
    return ok(keys.map(toKey));
  },
});

/** `POST /app-signing-keys`: issues the signing secret of an app (one key per app; rotate it afterwards). */
export const createAppSigningKey = defineRoute({
  operationId: 'createAppSigningKey',
  method: 'post',
  path: '/app-signing-keys',
  interface: 'back',
  summary: 'Issue an app’s request-signing secret',
  tags: ['Customers'],
  body: component(
    'AppSigningKeyCreation',
    Type.Object(
      { appId: Str(100, { minLength: 1, description: 'Client id of an API client with the front scope.' }) },
      { additionalProperties: false },
    ),
  ),
  access: { anyCaller: tenantAdministration },
  responses: { 201: { description: 'Issued; the secret is shown once', schema: IssuedSigningKey } },
  errors: ['AUTH002', 'SK409', 'SK422'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const client = await ctx.em.findOne(ApiClient, { clientId: ctx.body.appId });
    if (!client || !client.scopes.includes('front'))
      throw new DomainError('SK422', `${ctx.body.appId} is not an API client with the front scope`);
    if (await ctx.em.count(AppSigningKey, { appId: ctx.body.appId }))
      throw new DomainError('SK409', 'this app has a signing key; rotate it instead');
    const secret = newSecret();
    const key = ctx.em.create(AppSigningKey, { appId: ctx.body.appId, secret, rotatedAt: new Date() });
    await ctx.em.flush();
    return created({ ...toKey(key), secret });
  },
});

/** `POST /app-signing-keys/{keyId}/rotate`: a new secret at once (the old one stops verifying), and re-activates the key. */
export const rotateAppSigningKey = defineRoute({
  operationId: 'rotateAppSigningKey',
  method: 'post',
  path: '/app-signing-keys/{keyId}/rotate',
  interface: 'back',
  summary: 'Rotate an app’s request-signing secret',
  tags: ['Customers'],
  params: Type.Object({ keyId: Id() }),
  access: { anyCaller: tenantAdministration },
  responses: { 200: { description: 'The new secret, shown once', schema: IssuedSigningKey } },
  errors: ['AUTH002', 'SK404'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    const key = await keyOrFail(ctx);
    const secret = newSecret();
    Object.assign(key, { secret, active: true, rotatedAt: new Date() });
    return ok({ ...toKey(key), secret });
  },
});

/** `DELETE /app-signing-keys/{keyId}`: revokes the key; the app's signed requests fail with SE101 until a rotation. */
export const revokeAppSigningKey = defineRoute({
  operationId: 'revokeAppSigningKey',
  method: 'delete',
  path: '/app-signing-keys/{keyId}',
  interface: 'back',
  summary: 'Revoke an app’s request-signing key',
  tags: ['Customers'],
  params: Type.Object({ keyId: Id() }),
  access: { anyCaller: tenantAdministration },
  responses: { 204: { description: 'Revoked' } },
  errors: ['AUTH002', 'SK404'],
  async handler(ctx) {
    await authorizeTenantWide(ctx, MANAGE);
    (await keyOrFail(ctx)).active = false;
    return noContent();
  },
});

export const appSigningKeyRoutes = [
  listAppSigningKeys,
  createAppSigningKey,
  rotateAppSigningKey,
  revokeAppSigningKey,
];
