/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template that escapes every interpolated value unless it is wrapped with {@link raw}. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const piece = Array.isArray(value)
      ? value.map((v) => (v instanceof SafeHtml ? v.value : escapeHtml(v))).join('')
      : value instanceof SafeHtml
        ? value.value
        : escapeHtml(value);
    out += piece + strings[i + 1];
  });
  return new SafeHtml(out);
}

/** Markup that is already safe. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function raw(value: string): SafeHtml {
  return new SafeHtml(value);
}
