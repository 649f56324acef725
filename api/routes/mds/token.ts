// The MDS interface's token endpoint (docs/mds.md): OAuth2 client credentials of an agency credential an
// operator created (back: /mds-agencies), answering a bearer token of scope `mds` for this tenant only.
import { Type } from '@sinclair/typebox';
import { MdsAgency } from '../../../db/entities/MdsAgency.js';
import { DomainError } from '../../../domain/errors.js';
import { verifySecret } from '../../../platform/secrets.js';
import { basicCredentials } from '../../auth.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Int, Str, StringEnum } from '../../kernel/schemas.js';

const MdsTokenRequest = component(
  'MdsTokenRequest',
  Type.Object(
    {
      grant_type: StringEnum(['client_credentials']),
      client_id: Type.Optional(Str(100, { minLength: 1 })),
      client_secret: Type.Optional(Str(200, { minLength: 1 })),
      scope: Type.Optional(StringEnum(['mds'], { description: 'Always `mds`.' })),
    },
    { additionalProperties: false },
  ),
);

const MdsTokenResponse = component(
  'MdsTokenResponse',
  Type.Object(
    {
      access_token: Type.String(),
      token_type: StringEnum(['Bearer']),
      expires_in: Int(1, 31_536_000),
      scope: StringEnum(['mds']),
    },
    { additionalProperties: false },
  ),
);

export const issueMdsToken = defineRoute({
  operationId: 'issueMdsToken',
  method: 'post',
  path: '/token',
  interface: 'mds',
  summary: "Issue an agency's access token (OAuth2 client credentials, scope mds)",
  description:
    "Client credentials go in the body (form or JSON) or in HTTP Basic authentication. The token reads this tenant's published systems through the MDS endpoints and nothing else: the operator and app interfaces refuse it (`0005`), as do other tenants (`AUTH002`).",
  tags: ['MDS authentication'],
  body: MdsTokenRequest,
  bodyContentTypes: ['application/x-www-form-urlencoded', 'application/json'],
  access: { anonymous: 'this is where agencies obtain their token.' },
  responses: {
    200: {
      description: 'Token issued',
      schema: MdsTokenResponse,
      headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: Str(20) } },
    },
  },
  errors: ['AUTH051', 'AUTH101'],
  async handler({ body, em, tenant, header, services }) {
    const credentials = basicCredentials(header('authorization')) ?? {
      clientId: body.client_id ?? '',
      clientSecret: body.client_secret ?? '',
    };
    if (!credentials.clientId || !credentials.clientSecret)
      throw new DomainError('AUTH101', 'client_id and client_secret are required (body or HTTP Basic)');
    const agency = await em.findOne(MdsAgency, { clientId: credentials.clientId });
    // Unknown, revoked and wrong secret answer alike, so credentials cannot be probed.
    if (!agency || !agency.active || !(await verifySecret(credentials.clientSecret, agency.secretHash)))
      throw new DomainError('AUTH101', 'wrong client credentials');
    agency.lastTokenAt = new Date();
    const accessToken = await services.tokens.issue({
      tenant,
      subjectType: 'AGENCY',
      subjectId: agency.clientId,
      scope: 'mds',
    });
    return ok(
      { access_token: accessToken, token_type: 'Bearer', expires_in: services.tokenTtlSeconds, scope: 'mds' },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  },
});

export const mdsTokenRoutes = [issueMdsToken];
