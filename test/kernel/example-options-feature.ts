// The example of docs/architecture.md ("A feature's options"), word for word but for the import path and the last line.
import type { Middleware } from 'koa';
import { Type, type Static } from '@sinclair/typebox';
import { BODY_LIMITS, type Feature, type PortcullisConfig } from '../../lib/index.js';

/** The `banner` option: JSON Schema (TypeBox) whose `default`s `loadConfig` fills in. */
const bannerSchema = Type.Object(
  {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 200, default: 'Welcome' })),
    maxAgeSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, default: 60 })),
  },
  { additionalProperties: false, default: {} },
);
/** What a host writes under `banner`; once loaded, every member is there. */
export type BannerOptions = Static<typeof bannerSchema>;

/** `GET /banner` under the issuer's path: the configured text, cacheable for `maxAgeSeconds`. */
export const banner: Feature = {
  id: 'banner',
  options: { banner: Type.Optional(bannerSchema) },
  enabled: () => true,
  setup({ config }) {
    const { text, maxAgeSeconds } = (config as typeof config & { banner: Required<BannerOptions> }).banner;
    const serveBanner: Middleware = async (ctx, next) => {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      ctx.set('Cache-Control', `public, max-age=${maxAgeSeconds}`);
      ctx.body = { text };
    };
    return {
      routes: () => [
        { name: 'banner', where: { paths: ['/banner'] }, bodyLimit: BODY_LIMITS.pages, chain: [serveBanner] },
      ],
    };
  },
};

export const config: PortcullisConfig & { banner?: BannerOptions } = {
  issuer: 'http://localhost:3000',
  banner: { text: 'Maintenance on Sunday' },
};
