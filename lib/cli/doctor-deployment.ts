/** `portcullis doctor --url`: the checks of a running deployment, over HTTP. */
import type { PortcullisConfig } from '../../config/types.js';
import { checkCookies, checkPublishedKeys } from './doctor-probes.js';
import { type Finding, ok, problem } from './finding.js';

/**
 * The deployment at `base`: its discovery document (OpenID Connect, else RFC 8414), the headers of that answer
 * (HSTS, clock), what the document names (issuer, origins, keys) and the cookies of an authorization request.
 */
export async function checkDeployment(
  base: string,
  config: PortcullisConfig | undefined,
  maxSkew: number,
  timeoutMs: number,
): Promise<Finding[]> {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return [
      problem(
        'url-invalid',
        `--url ${JSON.stringify(base)} is not a URL`,
        'pass the issuer, e.g. --url https://id.example.com',
      ),
    ];
  }
  const fetched = await fetchDiscovery(url, timeoutMs);
  if (Array.isArray(fetched)) return fetched;
  const { res, path, discovery } = fetched;
  const https = url.protocol === 'https:';
  const out = [...statusFindings(res, path, discovery, url), ...headerFindings(res, https, maxSkew)];
  if (res.status === 200 && discovery) out.push(...(await discoveryFindings(discovery, url, config, timeoutMs)));
  return out;
}

interface Discovery {
  res: Response;
  /** The well-known path that answered (the OpenID one, or RFC 8414's after a 404). */
  path: string;
  /** The body, when it is JSON. */
  discovery: Record<string, unknown> | undefined;
}

/** The discovery document at `url`, or the finding that it does not answer. */
async function fetchDiscovery(url: URL, timeoutMs: number): Promise<Discovery | Finding[]> {
  const root = url.href.replace(/\/$/, '');
  const request = (target: string) =>
    fetch(target, {
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/json' },
    });

  let res: Response;
  let discovery: Record<string, unknown> | undefined;
  let path = '/.well-known/openid-configuration';
  try {
    res = await request(`${root}${path}`);
    if (res.status === 404) {
      path = '/.well-known/oauth-authorization-server';
      res = await request(`${root}${path}`);
    }
  } catch (err) {
    return [
      problem(
        'unreachable',
        `${root} does not ` +
          `answer: ${
            (err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message
          }`,
        'check the URL, DNS, the proxy and TLS certificate',
      ),
    ];
  }
  const bodyText = await res.text();
  try {
    discovery = JSON.parse(bodyText) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { res, path, discovery };
}

/** Why the discovery request was refused: plain http behind an untrusted proxy, a foreign Host, anything else. */
function statusFindings(
  res: Response,
  path: string,
  discovery: Record<string, unknown> | undefined,
  url: URL,
): Finding[] {
  const out: Finding[] = [];
  if (res.status === 400 && /proxy/i.test(String(discovery?.error_description ?? ''))) {
    out.push(
      problem(
        'proxy-unset',
        `the server refused ${path} because the request reached it over plain http although its issuer is ` +
          `https: TLS ends at a proxy and \`proxy\` is not set (${String(discovery?.error_description)})`,
        'set proxy: true (PORTCULLIS_PROXY=true) and make the proxy send X-Forwarded-Proto: https and X-Forwarded-For',
      ),
    );
  } else if (res.status === 421) {
    out.push(
      problem(
        'host-not-allowed',
        `the server refused the Host ${url.host} (421): it answers only for its issuer's host`,
        'call it by the issuer URL, or add this host to allowedHosts (PORTCULLIS_ALLOWED_HOSTS); behind a ' +
          'proxy, forward the original Host',
      ),
    );
  } else if (res.status !== 200 || !discovery) {
    out.push(
      problem(
        'discovery-failed',
        `${path} answered ${res.status}${discovery?.error ? ` ${String(discovery.error)}` : ''}, not a ` +
          `discovery document`,
        'check that --url is the issuer and the server runs',
      ),
    );
  }
  return out;
}

/** HSTS over https, and the server's clock (its `Date` header) against this machine's. */
function headerFindings(res: Response, https: boolean, maxSkew: number): Finding[] {
  const out: Finding[] = [];
  if (https) {
    out.push(
      res.headers.get('strict-transport-security')
        ? ok('hsts', `Strict-Transport-Security: ${res.headers.get('strict-transport-security')}`)
        : problem(
            'hsts-missing',
            'no Strict-Transport-Security header: a browser may be downgraded to http on its first visit',
            'send Strict-Transport-Security (Portcullis does for an https issuer; a proxy may strip it)',
          ),
    );
  }
  const date = res.headers.get('date');
  if (date) {
    const skew = Math.round((Date.now() - Date.parse(date)) / 1000);
    out.push(
      Math.abs(skew) > maxSkew
        ? problem(
            'clock-skew',
            `the server's clock differs from this machine's by ${skew} s (Date: ${date}): tokens look ` +
              `expired or not yet valid to relying parties`,
            'run NTP (chrony, systemd-timesyncd) on the server and on this machine',
          )
        : ok('clock', `clock difference ${skew} s`),
    );
  }
  return out;
}

/** What the discovery document names: the issuer, endpoints on the issuer's origin, the keys, the cookies. */
async function discoveryFindings(
  discovery: Record<string, unknown>,
  url: URL,
  config: PortcullisConfig | undefined,
  timeoutMs: number,
): Promise<Finding[]> {
  const https = url.protocol === 'https:';
  const out: Finding[] = [];
  out.push(...issuerFindings(discovery.issuer, url, config));
  const expectedOrigin = url.origin;
  const foreign = Object.entries(discovery)
    .filter(
      ([k, v]) =>
        typeof v === 'string' && (k.endsWith('_endpoint') || k === 'jwks_uri' || k === 'registration_endpoint'),
    )
    .filter(([, v]) => {
      try {
        return new URL(v as string).origin !== expectedOrigin;
      } catch {
        return true;
      }
    });
  out.push(
    foreign.length
      ? problem(
          'discovery-origin',
          `discovery points to another origin than the ` +
            `issuer: ${foreign.map(([k, v]) => `${k}=${String(v)}`).join(', ')}${
              https && foreign.some(([, v]) => String(v).startsWith('http:'))
                ? ' (plain http behind an https issuer: the proxy is not trusted)'
                : ''
            }`,
          'set issuer to the public URL and, behind a proxy, proxy: true',
        )
      : ok('discovery-origin', `every endpoint in discovery is under ${expectedOrigin}`),
  );
  const jwksUri = typeof discovery.jwks_uri === 'string' ? discovery.jwks_uri : undefined;
  if (jwksUri) out.push(...(await checkPublishedKeys(jwksUri, timeoutMs)));
  const authorization =
    typeof discovery.authorization_endpoint === 'string' ? discovery.authorization_endpoint : undefined;
  const client = config?.clients?.find((c) => c.redirect_uris?.length);
  if (https && authorization && client)
    out.push(await checkCookies(authorization, client.client_id, client.redirect_uris[0]!, timeoutMs));
  return out;
}

/**
 * The issuer discovery names, against the URL asked (OpenID Connect Discovery §4.3: relying parties refuse another)
 * and against the configuration's, which must be the one running there for the `--config` findings to be about it.
 */
function issuerFindings(named: unknown, url: URL, config: PortcullisConfig | undefined): Finding[] {
  const out: Finding[] = [];
  const root = url.href.replace(/\/$/, '');
  if (named !== root && named !== url.href) {
    out.push(
      problem(
        'issuer-mismatch',
        `discovery names issuer ${JSON.stringify(named)}, not ${root}: relying parties refuse it (OpenID ` +
          `Connect Discovery §4.3)`,
        'set issuer (PORTCULLIS_ISSUER) to the public URL clients use',
      ),
    );
  }
  if (typeof config?.issuer === 'string' && config.issuer !== named) {
    out.push(
      problem(
        'config-issuer-mismatch',
        `the configuration's issuer ${config.issuer} is not this deployment's (its discovery ` +
          `names ${JSON.stringify(named)}): the --config checked is not the one running at ${root}, or ` +
          `PORTCULLIS_ISSUER overrides it there`,
        `check a matching pair: the configuration ${root} runs with, or --url ${config.issuer}; if this file ` +
          `is meant for ${root}, set its "issuer" to ${JSON.stringify(named)}`,
      ),
    );
  }
  return out;
}
