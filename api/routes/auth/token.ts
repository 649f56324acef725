import { Type } from '@sinclair/typebox';
import { ApiClient } from '../../../db/entities/ApiClient.js';
import { Tenant } from '../../../db/entities/Tenant.js';
import { DomainError } from '../../../domain/errors.js';
import { verifySecret } from '../../../platform/secrets.js';
import { basicCredentials } from '../../auth.js';
import { component, Int, Str, StringEnum } from '../../kernel/schemas.js';
import { defineRoute, ok } from '../../kernel/route.js';

const interfaceScopes = ['back', 'front'] as const;

const TokenRequest = component(
  'TokenRequest',
  Type.Object(
    {
      grant_type: StringEnum(['client_credentials']),
      client_id: Type.Optional(Str(100, { minLength: 1 })),
      client_secret: Type.Optional(Str(200, { minLength: 1 })),
      scope: Type.Optional(StringEnum(interfaceScopes, { description: 'Interface the token is for.' })),
    },
    { additionalProperties: false },
  ),
);

const TokenResponse = component(
  'TokenResponse',
  Type.Object(
    {
      access_token: Type.String(),
      token_type: StringEnum(['Bearer']),
      expires_in: Int(1, 31_536_000),
      scope: StringEnum(interfaceScopes),
    },
    { additionalProperties: false },
  ),
);

/** `POST /v1/{tenant}/auth/token`: OAuth2 client credentials for API clients, in both documents. */
export const issueToken = defineRoute({
  operationId: 'issueToken',
  method: 'post',
  path: '/token',
  interface: 'auth',
  summary: 'Issue an access token (OAuth2 client credentials)',
  description:
    'Client credentials go in the body (form or JSON) or in HTTP Basic authentication. `scope` chooses the interface (`back` for the operator API, `front` for the app API); it defaults to the first scope the client holds.',
  tags: ['Authentication'],
  body: TokenRequest,
  bodyContentTypes: ['application/x-www-form-urlencoded', 'application/json'],
  access: { anonymous: 'this is where callers obtain their token.' },
  responses: {
    200: {
      description: 'Token issued',
      schema: TokenResponse,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH051', 'AUTH101', 'AUTH217'],
  async handler({ body, em, tenant, header, services }) {
    const credentials = basicCredentials(header('authorization')) ?? {
      clientId: body.client_id ?? '',
      clientSecret: body.client_secret ?? '',
    };
    // OAuth2 (RFC 6749 5.2): a request without client authentication is invalid_client, like a wrong secret.
    if (!credentials.clientId || !credentials.clientSecret) {
      throw new DomainError('AUTH101', 'client_id and client_secret are required (body or HTTP Basic)');
    }
    if (!(await em.findOne(Tenant, { id: tenant }, { filters: false }))) throw new DomainError('AUTH051');
    const client = await em.findOne(ApiClient, { clientId: credentials.clientId });
    // Unknown client and wrong secret answer alike, so client ids cannot be probed.
    if (!client || !client.active || !(await verifySecret(credentials.clientSecret, client.secretHash))) {
      throw new DomainError('AUTH101', 'wrong client credentials');
    }
    const scope = body.scope ?? client.scopes[0];
    if (!scope || !client.scopes.includes(scope))
      throw new DomainError('AUTH217', `client may not request scope "${body.scope}"`);
    const accessToken = await services.tokens.issue({
      tenant,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      scope,
    });
    return ok(
      { access_token: accessToken, token_type: 'Bearer', expires_in: services.tokenTtlSeconds, scope },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  },
});
export const tokenRoutes = [issueToken];
