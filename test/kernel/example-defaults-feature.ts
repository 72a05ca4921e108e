// The example of docs/architecture.md ("A feature's options", derived defaults), word for word but for the import paths.
import { Type } from '@sinclair/typebox';
import type { Feature } from '../../lib/index.js';

/** `help.url`: where a page's help link goes; by default `/help` on the issuer's origin (a derived default). */
export const help: Feature = {
  id: 'help',
  options: {
    help: Type.Optional(
      Type.Object({ url: Type.Optional(Type.String({ format: 'uri' })) }, { additionalProperties: false, default: {} }),
    ),
  },
  defaults(config) {
    const { help } = config as typeof config & { help: { url?: string } };
    return { help: { url: help.url ?? `${new URL(config.issuer).origin}/help` } };
  },
  enabled: () => true,
  setup: () => ({}),
};
