import { CookieJar } from 'tough-cookie';
import { parse, type HTMLElement } from 'node-html-parser';

/** A response as the test browser saw it. */
export interface Page {
  url: string;
  status: number;
  headers: Headers;
  body: string;
  dom: HTMLElement;
}

/**
 * A minimal browser over real HTTP: a cookie jar (tough-cookie), manual redirects that stop at any URL outside
 * the server (the client's redirect_uri), and HTML form submission as a user would click it.
 */
export class TestBrowser {
  readonly jar = new CookieJar();
  /** Every URL the browser was sent to, in order (redirect targets included). */
  readonly visited: string[] = [];

  constructor(private readonly origin: string) {}

  async request(url: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    const cookie = await this.jar.getCookieString(url);
    if (cookie) headers.set('cookie', cookie);
    if (!headers.has('accept')) headers.set('accept', 'text/html,application/xhtml+xml');
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) await this.jar.setCookie(c, url, { ignoreError: true });
    const body = await res.text();
    return { url, status: res.status, headers: res.headers, body, dom: parse(body) };
  }

  /**
   * Follows redirects while they stay on the server; returns the last page on the server, or the page whose
   * `Location` leaves it (then `redirectedTo` is set and the URL is not fetched).
   */
  async go(url: string, init: RequestInit = {}): Promise<Page & { redirectedTo?: string }> {
    let page = await this.request(url, init);
    this.visited.push(url);
    for (let hops = 0; hops < 20 && page.status >= 300 && page.status < 400; hops++) {
      const location = new URL(page.headers.get('location')!, page.url).href;
      this.visited.push(location);
      if (!location.startsWith(this.origin)) return { ...page, redirectedTo: location };
      page = await this.request(location);
    }
    return page;
  }

  /** Submits the page's first form with `fields` over its hidden inputs; `button` picks a named submit button. */
  async submit(page: Page, fields: Record<string, string>, button?: { name: string; value: string }) {
    const form = page.dom.querySelector('form');
    if (!form) throw new Error(`no form on ${page.url} (status ${page.status}): ${page.body.slice(0, 300)}`);
    const data = new URLSearchParams();
    for (const input of form.querySelectorAll('input[type=hidden]'))
      data.set(input.getAttribute('name')!, input.getAttribute('value') ?? '');
    for (const [k, v] of Object.entries(fields)) data.set(k, v);
    if (button) data.set(button.name, button.value);
    const action = new URL(form.getAttribute('action')!, page.url).href;
    return this.go(action, {
      method: 'POST',
      body: data,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
}
