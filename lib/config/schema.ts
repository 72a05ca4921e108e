/** JSON Schema (draft 2020-12 subset understood by ajv) of {@link PortcullisConfig}. */
const positiveSeconds = { type: 'integer', minimum: 1, maximum: 10 * 365 * 24 * 3600 };
const absoluteUrl = { type: 'string', format: 'uri', pattern: '^https?://' };

/** A private JWKS (RFC 7517 §5): every key has a private part. */
export const privateJwksSchema = {
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', minItems: 1, items: { type: 'object', required: ['kty', 'd'], properties: { kty: { enum: ['RSA', 'EC', 'OKP'] }, d: { type: 'string' } } } } },
};
/** One rate limit, `{ points, durationSeconds }` (the shape of `LimitSpec`), used by every limit option. */
const limitSpec = {
  type: 'object',
  additionalProperties: false,
  required: ['points', 'durationSeconds'],
  properties: { points: { type: 'integer', minimum: 1 }, durationSeconds: positiveSeconds },
};

const clientSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['client_id', 'redirect_uris'],
  properties: {
    client_id: { type: 'string', minLength: 1, maxLength: 255 },
    client_secret: { type: 'string', minLength: 12 },
    redirect_uris: { type: 'array', minItems: 1, items: { type: 'string', format: 'uri' } },
    grant_types: { type: 'array', items: { enum: ['authorization_code', 'refresh_token', 'implicit'] } },
    response_types: {
      type: 'array',
      items: { enum: ['code', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'] },
    },
    token_endpoint_auth_method: { enum: ['client_secret_basic', 'client_secret_post', 'none'] },
    application_type: { enum: ['web', 'native'] },
    client_name: { type: 'string' },
    scope: { type: 'string' },
    post_logout_redirect_uris: { type: 'array', items: { type: 'string', format: 'uri' } },
    pkce_optional: { type: 'boolean' },
  },
};

const accountSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    email: { type: 'string', format: 'email' },
    password: { type: 'string', minLength: 8, maxLength: 256 },
    email_verified: { type: 'boolean' },
    roles: { type: 'array', items: { type: 'string' } },
    claims: { type: 'object' },
  },
};


export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['issuer'],
  properties: {
    issuer: { ...absoluteUrl, not: { pattern: '[?#]' } },
    clients: { type: 'array', items: clientSchema },
    accounts: { type: 'array', items: accountSchema },
    accountStore: { type: 'object' },
    scopes: {
      type: 'object',
      propertyNames: { pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['description'],
        properties: { description: { type: 'string', minLength: 1 }, requiresRole: { type: 'string', minLength: 1 } },
      },
    },
    ttl: {
      type: 'object',
      additionalProperties: false,
      properties: {
        authorizationCode: { ...positiveSeconds, maximum: 600 },
        accessToken: positiveSeconds,
        idToken: positiveSeconds,
        refreshToken: positiveSeconds,
        interaction: positiveSeconds,
        session: positiveSeconds,
        grant: positiveSeconds,
      },
    },
    keys: {
      type: 'object',
      additionalProperties: false,
      properties: {
        signing: { anyOf: [{ type: 'string', minLength: 1 }, privateJwksSchema] },
        cookies: { type: 'array', minItems: 1, items: { type: 'string', minLength: 32 } },
      },
    },
    registration: {
      type: 'object',
      additionalProperties: false,
      properties: {
        initialAccessToken: { type: 'string', minLength: 16 },
        enabled: { type: 'boolean' },
        allowRemoteLogos: { type: 'boolean' },
      },
    },
    outboundFetch: {
      type: 'object',
      additionalProperties: false,
      properties: {
        allowedOrigins: { type: 'array', items: { type: 'string', format: 'uri', pattern: '^https?://[^/?#]+/?$' } },
        timeoutMs: { type: 'integer', minimum: 1, maximum: 60_000 },
        maxResponseBytes: { type: 'integer', minimum: 1, maximum: 16 * 1024 * 1024 },
      },
    },
    rateLimits: {
      type: 'object',
      additionalProperties: false,
      properties: { clientAuthFailures: limitSpec, registrations: limitSpec },
    },
    graphql: {
      type: 'object',
      additionalProperties: false,
      required: ['typeDefs'],
      properties: {
        path: { type: 'string', pattern: '^/[A-Za-z0-9/_-]*$' },
        typeDefs: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }, { type: 'array' }] },
        resolvers: { anyOf: [{ type: 'object' }, { type: 'array' }] },
        introspection: {
          type: 'object', additionalProperties: false,
          properties: { enabled: { type: 'boolean' }, requiredScope: { type: 'string', minLength: 1 } },
        },
        transports: { type: 'object', additionalProperties: false, properties: { get: { type: 'boolean' }, form: { type: 'boolean' } } },
        corsOrigins: { type: 'array', items: { type: 'string', pattern: '^https?://[^/?#]+$' } },
        maxBatchSize: { type: 'integer', minimum: 0, maximum: 100 },
        trustedDocuments: { type: 'array', items: { type: 'string', minLength: 1 } },
        limits: {
          type: 'object', additionalProperties: false,
          properties: {
            maxQueryBytes: { type: 'integer', minimum: 16, maximum: 1048576 },
            maxTokens: { type: 'integer', minimum: 1 },
            maxDepth: { type: 'integer', minimum: 1 },
            maxAliases: { type: 'integer', minimum: 0 },
            maxRootFields: { type: 'integer', minimum: 1 },
            maxUniqueFields: { type: 'integer', minimum: 1 },
            maxDirectives: { type: 'integer', minimum: 0 },
            maxRecursiveSelections: { type: 'integer', minimum: 1 },
            maxCost: { type: 'integer', minimum: 1 },
            defaultFieldCost: { type: 'number', minimum: 0 },
            fieldCosts: { type: 'object', propertyNames: { pattern: '^[_A-Za-z][_0-9A-Za-z]*\\.[_A-Za-z][_0-9A-Za-z]*$' }, additionalProperties: { type: 'number', minimum: 0 } },
            defaultListSize: { type: 'integer', minimum: 0 },
          },
        },
        rateLimit: {
          anyOf: [
            { const: false },
            limitSpec,
          ],
        },
        privateFieldCheck: { enum: ['warn', 'refuse', 'off'] },
        resource: { type: 'string', format: 'uri', not: { pattern: '#' } },
      },
    },
    storage: {
      type: 'object',
      additionalProperties: false,
      properties: {
        type: { enum: ['memory', 'redis'] },
        maxEntries: { type: 'integer', minimum: 0 },
        url: { type: 'string', pattern: '^rediss?://' },
        client: { type: 'object' },
        keyPrefix: { type: 'string', maxLength: 100 },
      },
    },
    proxy: { type: 'boolean' },
    allowedHosts: { type: 'array', maxItems: 50, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 261 } },
    demo: { type: 'boolean' },
    openid: { type: 'boolean' },
    webMessageResponseMode: { type: 'boolean' },
    logger: { type: 'object' },
    selfService: {
      type: 'object',
      additionalProperties: false,
      properties: {
        signup: { type: 'boolean' },
        requireVerifiedEmail: { type: 'boolean' },
        passwordMinLength: { type: 'integer', minimum: 8, maximum: 256 },
        verificationTtl: positiveSeconds,
        resetTtl: positiveSeconds,
      },
    },
    mail: {
      type: 'object',
      additionalProperties: false,
      properties: {
        from: { type: 'string', minLength: 3 },
        smtp: { anyOf: [{ type: 'string', pattern: '^smtps?://' }, { type: 'object' }] },
        mailbox: { type: 'string', minLength: 1 },
      },
    },
    accountLimits: {
      type: 'object',
      additionalProperties: false,
      properties: { loginPerAccount: limitSpec, loginPerIp: limitSpec, mailPerAddress: limitSpec, mailPerIp: limitSpec },
    },
  },
} as const;
