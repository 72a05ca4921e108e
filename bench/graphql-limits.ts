/**
 * GraphQL limits, measured against bare Apollo Server 5 on Koa in the same run (same schema, same machine).
 *
 *   npm run build && node dist/bench/graphql-limits.js
 *
 * Prints, for each attack document, how long one request takes on Portcullis and on bare Apollo (median of 5)
 * and the status each answers; then autocannon throughput of an ordinary query on both, with the ratio; then
 * graphql-depth-limit 1.1.0 on the fragment bomb, for reference.
 */
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { koaMiddleware } from '@as-integrations/koa';
import { bodyParser } from '@koa/bodyparser';
import { makeExecutableSchema } from '@graphql-tools/schema';
import autocannon from 'autocannon';
import depthLimit from 'graphql-depth-limit';
import { parse, validate, specifiedRules, buildSchema } from 'graphql';
import Koa from 'koa';
import { createServer } from '../lib/index.js';
import { catalogResolvers, typeDefs } from '../examples/catalog/schema.js';
import { demoFixtures } from '../examples/demo-fixtures.js';

const aliasBomb = (bytes: number) => {
  const one = 'a0: product(id: 1) { id } ';
  return `{ ${Array.from({ length: Math.floor(bytes / one.length) }, (_, i) => `a${i}: product(id: 1) { id }`).join(' ')} }`;
};
const nestingBomb = (bytes: number) => {
  const levels = Math.floor((bytes - 40) / 12);
  return `{ products { ${'related { '.repeat(levels)}id${' }'.repeat(levels)} } }`;
};
const fragmentBomb = (n: number) => `query { ...F${n} }\nfragment F0 on Query { products { id } }\n${Array.from({ length: n }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`).join('\n')}`;

async function bareApollo(): Promise<{ url: string; close(): Promise<void> }> {
  const directives = 'directive @requiresScopes(scopes: [String!]!) on FIELD_DEFINITION | OBJECT | INTERFACE\n';
  const apollo = new ApolloServer({ schema: makeExecutableSchema({ typeDefs: directives + typeDefs, resolvers: catalogResolvers() as never }) });
  await apollo.start();
  const app = new Koa();
  app.use(bodyParser({ jsonLimit: '10mb' }));
  app.use(koaMiddleware(apollo) as never);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: async () => { server.close(); await apollo.stop(); } };
}

async function portcullis(): Promise<{ url: string; close(): Promise<void> }> {
  const server = await createServer({
    issuer: 'http://127.0.0.1:1', ...demoFixtures(),
    graphql: { typeDefs, resolvers: catalogResolvers(), rateLimit: false },
    logger: { warn() {}, info() {}, error() {}, debug() {}, child() { return this; } } as never,
  });
  const http = await server.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`, close: () => server.close() };
}

async function timeOne(url: string, query: string): Promise<{ ms: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    status = res.status;
  }
  times.sort((a, b) => a - b);
  return { ms: times[2]!, status };
}

const bare = await bareApollo();
const ours = await portcullis();
const attacks: Array<[string, string]> = [
  ['1 MB alias bomb', aliasBomb(1_000_000)],
  ['1 MB nesting bomb', nestingBomb(1_000_000)],
  ['fragment bomb, 24 fragments', fragmentBomb(24)],
  ['fragment bomb, 30 fragments', fragmentBomb(30)],
  ['ordinary query', '{ products { id name } }'],
];
console.log('document                       | bytes     | Portcullis          | bare Apollo          | ratio');
for (const [name, query] of attacks) {
  const a = await timeOne(ours.url, query);
  const b = await timeOne(bare.url, query);
  console.log(`${name.padEnd(30)} | ${String(query.length).padStart(9)} | ${a.ms.toFixed(1).padStart(8)} ms (${a.status}) | ${b.ms.toFixed(1).padStart(8)} ms (${b.status}) | ${(b.ms / a.ms).toFixed(1)}x`);
}

const body = JSON.stringify({ query: '{ products { id name } }' });
const run = (url: string) => autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 10, duration: 4 });
console.log('\nthroughput, 10 connections, 4 s per run:');
await run(ours.url); await run(bare.url); // warm-up (JIT), not reported
// Alternate the two servers (the machine is shared: load from other processes shifts single runs).
const ratios: number[] = [];
for (let round = 1; round <= 3; round++) {
  const rOurs = await run(ours.url);
  const rBare = await run(bare.url);
  ratios.push(rOurs.requests.average / rBare.requests.average);
  console.log(`round ${round}: Portcullis ${rOurs.requests.average.toFixed(0)} req/s (p99 ${rOurs.latency.p99} ms, non-2xx ${rOurs.non2xx}), bare Apollo ${rBare.requests.average.toFixed(0)} req/s (p99 ${rBare.latency.p99} ms), ratio ${ratios.at(-1)!.toFixed(2)}`);
}
console.log(`throughput ratio Portcullis / bare Apollo for { products { id name } }, median of 3: ${[...ratios].sort((a, b) => a - b)[1]!.toFixed(2)}`);

const schema = buildSchema(`type Product { id: Int related: [Product] } type Query { products: [Product] }`);
for (const n of [20, 22]) {
  const doc = parse(fragmentBomb(n));
  const t0 = performance.now();
  const errors = validate(schema, doc, [...specifiedRules, depthLimit(6)]);
  console.log(`graphql-depth-limit 1.1.0 on the ${n}-fragment bomb: ${(performance.now() - t0).toFixed(0)} ms, ${errors.length} errors (doubles per fragment)`);
}
await ours.close();
await bare.close();
