/**
 * `portcullis doctor`: checks a configuration and, given a URL, a running deployment, for the misconfigurations
 * behind most "sessions lost / cookies not set / http endpoints in discovery" reports: TLS terminated at a proxy
 * without `proxy: true`, cookies without `Secure`, no HSTS, ephemeral keys, memory storage in production, Redis
 * without persistence, clock skew, discovery on another origin than the issuer, keys without `kid`, GraphQL
 * introspection or GET queries in production.
 */
import type { PortcullisConfig } from '../../config/types.js';
import { checkConfig } from './doctor-config.js';
import { checkDeployment } from './doctor-deployment.js';
import type { Finding } from './finding.js';

export type { Finding } from './finding.js';

/** Inputs of {@link diagnose}. */
export interface DoctorOptions {
  /** The configuration as written (before defaults); omit to check only a deployment. */
  config?: PortcullisConfig;
  /** Base URL of a running deployment (normally the issuer); omit to check only the configuration. */
  url?: string;
  /** Environment the configuration runs with (`NODE_ENV`). @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * Largest tolerated difference between this machine's clock and the server's `Date` header, in seconds. @default 30
   */
  maxClockSkewSeconds?: number;
  /** Timeout of each HTTP request and of the Redis check, in milliseconds. @default 5000 */
  timeoutMs?: number;
}

/**
 * Runs every check that its inputs allow and returns the findings in a stable order (configuration first, then
 * the deployment). Never throws for a bad configuration or an unreachable URL: those are findings too.
 */
export async function diagnose(options: DoctorOptions): Promise<Finding[]> {
  const findings: Finding[] = [];
  if (options.config)
    findings.push(...(await checkConfig(options.config, options.env ?? process.env, options.timeoutMs ?? 5000)));
  if (options.url)
    findings.push(
      ...(await checkDeployment(
        options.url,
        options.config,
        options.maxClockSkewSeconds ?? 30,
        options.timeoutMs ?? 5000,
      )),
    );
  return findings;
}

/** Prints findings as lines: `✗ problem`, `! warning`, `✓ ok`, each fix indented under its finding. */
export function formatFindings(findings: readonly Finding[]): string {
  const mark = { problem: '✗', warning: '!', ok: '✓' } as const;
  const lines = findings.map((f) => `${mark[f.level]} [${f.id}] ${f.message}${f.fix ? `\n    fix: ${f.fix}` : ''}`);
  const problems = findings.filter((f) => f.level === 'problem').length;
  const warnings = findings.filter((f) => f.level === 'warning').length;
  lines.push(`${problems} problem(s), ${warnings} warning(s)`);
  return lines.join('\n');
}
