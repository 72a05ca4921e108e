/** JSON Schema (draft 2020-12 subset understood by ajv) of {@link PortcullisConfig}. */
const positiveSeconds = { type: 'integer', minimum: 1, maximum: 10 * 365 * 24 * 3600 };
const absoluteUrl = { type: 'string', format: 'uri', pattern: '^https?://' };

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
        signing: {
          type: 'object',
          required: ['keys'],
          properties: { keys: { type: 'array', minItems: 1, items: { type: 'object', required: ['kty', 'd'], properties: { kty: { enum: ['RSA', 'EC', 'OKP'] }, d: { type: 'string' } } } } },
        },
        cookies: { type: 'array', minItems: 1, items: { type: 'string', minLength: 32 } },
      },
    },
    registration: {
      type: 'object',
      additionalProperties: false,
      properties: { initialAccessToken: { type: 'string', minLength: 16 } },
    },
    graphql: {
      type: 'object',
      additionalProperties: false,
      required: ['typeDefs'],
      properties: {
        path: { type: 'string', pattern: '^/[A-Za-z0-9/_-]*$' },
        typeDefs: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object' }, { type: 'array' }] },
        resolvers: { anyOf: [{ type: 'object' }, { type: 'array' }] },
      },
    },
    storage: {
      type: 'object',
      additionalProperties: false,
      properties: { type: { enum: ['memory'] }, maxEntries: { type: 'integer', minimum: 0 } },
    },
    proxy: { type: 'boolean' },
    demo: { type: 'boolean' },
    openid: { type: 'boolean' },
    webMessageResponseMode: { type: 'boolean' },
    logger: { type: 'object' },
  },
} as const;
