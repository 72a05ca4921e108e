/** A client logo the consent page may show, with the one origin the page's CSP must then allow for images. */
export interface DisplayableLogo {
  /** The registered `logo_uri` (https). */
  src: string;
  /** `https://host[:port]`, added to `img-src`. */
  origin: string;
}

/**
 * Decides whether a client's registered `logo_uri` (RFC 7591 §2) is shown on the consent page. The server never
 * fetches it; the user's browser loads it, and only when the deployment opted in (`registration.allowRemoteLogos`)
 * and the URI is https with a plain host name or IP (so its origin is a valid, single CSP source). Otherwise
 * `undefined`: no logo.
 */
export function displayableLogo(logoUri: unknown, allowRemoteLogos: boolean): DisplayableLogo | undefined {
  if (!allowRemoteLogos || typeof logoUri !== 'string' || !URL.canParse(logoUri)) return undefined;
  const url = new URL(logoUri);
  if (url.protocol !== 'https:' || url.username || url.password) return undefined;
  if (!/^https:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d+)?$/i.test(url.origin)) return undefined;
  return { src: url.href, origin: url.origin };
}
