import { BODY_LIMITS } from '../../http/body-limit.js';
import { PAGE_PREFIXES } from '../../http/paths.js';
import type { Feature } from '../../kernel/types.js';
import { logoRoute } from './logo.js';
import { brandingOptions } from './options.js';

/** The logo of the pages at `/ui/logo` (`ui.logo`; 404 without one). The rest of the branding is the page frame's. */
export const branding: Feature = {
  id: 'branding',
  options: brandingOptions,
  enabled: () => true,
  setup: ({ kernel }) => ({
    routes: () => [
      {
        name: 'logo',
        where: { segment: PAGE_PREFIXES.ui },
        bodyLimit: BODY_LIMITS.pages,
        chain: [logoRoute(kernel.ui)],
      },
    ],
  }),
};
