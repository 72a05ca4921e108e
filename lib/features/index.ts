import type { Feature } from '../kernel/types.js';
import { account } from './account/index.js';
import { branding } from './branding/index.js';
import { graphql } from './graphql/index.js';
import { health } from './health/index.js';
import { mfa } from './mfa/index.js';
import { passkeys } from './passkeys/index.js';
import { registration } from './registration/index.js';
import { selfService } from './self-service/index.js';
import { signIn } from './sign-in/index.js';

/**
 * The server's own features, in set-up order (each after those it `requires`). `createServer(config)` uses them;
 * a host adds its own with `createServer(config, [...defaultFeatures, mine])`. Each turns itself on or off from
 * the configuration (`enabled`), so leaving one out of the list is for features that are always on.
 */
export const defaultFeatures: readonly Feature[] = Object.freeze([
  health,
  branding,
  passkeys,
  mfa,
  selfService,
  signIn,
  account,
  registration,
  graphql,
]);

export { account, branding, graphql, health, mfa, passkeys, registration, selfService, signIn };
