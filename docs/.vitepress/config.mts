/**
 * The documentation site, built from docs/ by VitePress (`npm run docs:dev`, `npm run docs:build`; output in
 * docs/.vitepress/dist, ignored by git).
 *
 * Why VitePress: the pages stay plain Markdown that reads the same on GitHub (no front matter or MDX needed), it is
 * well kept (the Vue/Vite team, monthly releases), its full-text search runs in the browser from an index built
 * with the site (no service, no network at build or read time), and it is one dev dependency.
 *
 * Anchors are GitHub's (scripts/heading-slug.ts), so a `page.md#anchor` link works on GitHub and on the site alike
 * (test/docs/links.test.ts checks them). The API reference is TypeDoc's HTML (`npm run docs:api`, into
 * docs/public/api, copied into the site as it is) and linked from the navigation.
 */
import { defineConfig } from 'vitepress';
import { headingSlug } from '../../scripts/heading-slug.js';

const guides = [
  ['Getting started', 'getting-started'],
  ['Using it in your code', 'using-in-your-code'],
  ['Hosts: Koa, Express, Fastify, node:http', 'hosts'],
  ['Accounts', 'accounts'],
  ['Second factors and passkeys', 'second-factors-and-passkeys'],
  ['Branding and languages', 'branding'],
  ['Configuration', 'configuration'],
  ['Your own storage or account store', 'custom-storage'],
  ['Production', 'production'],
  ['Upgrading', 'upgrading'],
  ['Storage, instances, health, logs', 'operations'],
  ['Client registration', 'client-registration'],
  ['GraphQL API', 'graphql'],
  ['GraphQL security', 'graphql-security'],
  ['GraphQL clients', 'graphql-clients'],
];

export default defineConfig({
  title: 'Portcullis',
  description: 'Secure-by-default OAuth 2.0 authorization server with OpenID Connect and a hardened GraphQL API on Koa',
  // docs/README.md is the home page (GitHub shows it for the folder).
  rewrites: { 'README.md': 'index.md' },
  cleanUrls: true,
  lastUpdated: false,
  markdown: { anchor: { slugify: headingSlug } },
  // Links out of docs/ (to the sources, examples and tests of the repository, or the README) are right on GitHub,
  // where they point; the site has no page for them.
  // test/docs/links.test.ts checks that they exist.
  ignoreDeadLinks: [/^\.\/(\.\.\/)+(README|CHANGELOG|LICENSE|lib|adapters|config|examples|test|bench|scripts|\.changeset|\.ci)(\/|$)/],
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guides', link: '/guides/getting-started' },
      { text: 'Security', link: '/security' },
      { text: 'Reference', link: '/reference/options' },
      { text: 'API', link: '/api/index.html', target: '_self' },
    ],
    sidebar: [
      { text: 'Guides', items: guides.map(([text, page]) => ({ text, link: `/guides/${page}` })) },
      {
        text: 'Background',
        items: [
          { text: 'Security model', link: '/security' },
          { text: 'Architecture', link: '/architecture' },
          { text: 'Performance', link: '/performance' },
          { text: 'Dependencies and why', link: '/dependencies' },
          { text: 'What does not work yet', link: '/limitations' },
          { text: 'Project layout', link: '/project-layout' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Options', link: '/reference/options' },
          { text: 'Error codes', link: '/reference/errors' },
          { text: 'Routes', link: '/reference/routes' },
          { text: 'API (TypeDoc)', link: '/api/index.html', target: '_self' },
        ],
      },
    ],
    outline: [2, 3],
  },
});
