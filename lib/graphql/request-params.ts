export const MISSING_QUERY_MESSAGE =
  'The GraphQL query is missing: send a JSON object with a non-empty "query" string, e.g. {"query":"{ __typename }"}.';

/** One GraphQL request as every transport delivers it, after the transport guard. */
export interface GraphqlRequestItem {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** Why one request is refused: its error code and message. */
export interface ItemError {
  status: 400;
  code: 'QUERY_MISSING' | 'BAD_REQUEST' | 'PERSISTED_QUERY_NOT_SUPPORTED';
  message: string;
}

export const refused = (item: GraphqlRequestItem | ItemError): item is ItemError => 'code' in item;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const badRequest = (message: string): ItemError => ({ status: 400, code: 'BAD_REQUEST', message });

/**
 * One GraphQL request object (GraphQL over HTTP §"Request Parameters"): no `extensions.persistedQuery` (else
 * `PERSISTED_QUERY_NOT_SUPPORTED`, with or without a query), `query` a non-empty string (else `QUERY_MISSING`),
 * `operationName` a string or null, `variables` and `extensions` JSON objects or null. Anything else is
 * refused with the member named, so no transport hands Apollo a request it would read differently. An empty
 * `operationName` is none, in every transport: GraphQL over HTTP §GET says so of the URL parameter (an HTML form's
 * empty field is the same encoding), and in JSON no operation can be named "" (a GraphQL Name has a first letter),
 * so "" could only ever be refused. Apollo is handed it as none too ({@link forApollo}).
 */
export function requestItem(value: unknown): GraphqlRequestItem | ItemError {
  const missing: ItemError = { status: 400, code: 'QUERY_MISSING', message: MISSING_QUERY_MESSAGE };
  if (!isObject(value)) return missing;
  const { query, variables, operationName, extensions } = value;
  // Automatic persisted queries are off; a hash-carrying request is refused rather than half-honoured. Checked
  // before the query: an APQ client's first request carries the hash alone, and only this code makes it fall back
  // to sending the full text (Apollo Client's PersistedQueryLink retries on PERSISTED_QUERY_NOT_SUPPORTED only).
  if (isObject(extensions) && 'persistedQuery' in extensions) {
    return {
      status: 400,
      code: 'PERSISTED_QUERY_NOT_SUPPORTED',
      message: 'Automatic persisted queries are not supported here: send the full query text.',
    };
  }
  // A query that is absent, empty or not a string (a number, a list, a parsed document) is the same mistake.
  if (typeof query !== 'string' || query.trim() === '') return missing;
  if (variables !== undefined && variables !== null && !isObject(variables)) {
    return badRequest('The "variables" member must be a JSON object (not a string, list or number).');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return badRequest('The "operationName" member must be a string.');
  }
  if (extensions !== undefined && extensions !== null && !isObject(extensions)) {
    return badRequest('The "extensions" member must be a JSON object.');
  }
  return {
    query,
    variables: isObject(variables) ? variables : undefined,
    operationName: typeof operationName === 'string' && operationName !== '' ? operationName : undefined,
  };
}

const emptyName = (o: unknown): boolean => isObject(o) && o.operationName === '';
const named = (o: unknown): unknown => (emptyName(o) ? { ...(o as object), operationName: null } : o);

/**
 * A JSON body (one request object or a batch) as Apollo is to read it after {@link requestItem} accepted it: an
 * empty `operationName` as `null` (Apollo would look for an operation named ""). The body itself when none is empty.
 */
export function forApollo(body: unknown): unknown {
  if (Array.isArray(body)) return body.some(emptyName) ? body.map(named) : body;
  return named(body);
}

/**
 * The value of a JSON-encoded URL parameter or form field (`what` names it), read as the JSON body is read: a
 * `__proto__` member at any depth is refused, as the body parser refuses it in a POST body (`JSON.parse` keeps it
 * as a plain member, which a later copy or merge would turn into the object's prototype).
 */
function jsonValue(text: string, what: string): { value: unknown } | ItemError {
  let proto = false;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v: unknown) => {
      if (key === '__proto__') proto = true;
      return v;
    });
  } catch {
    return badRequest(`The ${what} is not valid JSON.`);
  }
  return proto ? badRequest(`The ${what} holds a "__proto__" member, which is refused.`) : { value };
}

/** The parameters of a GET request that Apollo reads too. */
const URL_PARAMETERS = ['query', 'variables', 'operationName', 'extensions'];

/**
 * The request of a `GET ?query=` (its URL parameters), read as a JSON body with the same members would be. An
 * empty `variables` or `extensions` is no parameter (GraphQL over HTTP §GET: "Specifying the empty string for
 * optional request parameters is equivalent to not specifying them at all"), and `null` is none as in a JSON body
 * (§JSON Encoding); an empty `operationName` is none as well. Apollo reads the URL again after us and refuses
 * these (`invalid JSON`, `should contain a JSON-encoded object`, no operation named ""), so such a parameter is
 * deleted from `params`: the caller hands Apollo what is left.
 */
export function urlRequest(params: URLSearchParams): GraphqlRequestItem | ItemError {
  // Apollo reads these parameters too: one value each, so the document checked is the document run.
  if (URL_PARAMETERS.some((name) => params.getAll(name).length > 1)) {
    return badRequest('Each of query, variables, operationName and extensions may appear once.');
  }
  if (params.get('operationName') === '') params.delete('operationName');
  const raw: Record<string, unknown> = {
    query: params.get('query'),
    operationName: params.get('operationName') ?? undefined,
  };
  for (const name of ['variables', 'extensions']) {
    const text = params.get(name);
    if (text === null) continue;
    const parsed = text === '' ? { value: null } : jsonValue(text, `${name} parameter`);
    if ('code' in parsed) return parsed;
    if (parsed.value === null) params.delete(name);
    else raw[name] = parsed.value;
  }
  return requestItem(raw);
}

/** The fields of a form POST: a form carries no `extensions` (so no persisted query), and nothing else is read. */
const FORM_FIELDS = new Set(['query', 'variables', 'operationName', 'csrf_token']);

/** The request of a form POST (its fields, in order, as sent), its CSRF token already checked. */
export function formRequest(fields: ReadonlyArray<[string, unknown]>): GraphqlRequestItem | ItemError {
  // A field we do not read (`extensions`, `constructor`), a repeated one or a bracketed one (`variables[id]=1`)
  // would be dropped in silence and the request run without it: refuse it instead.
  const names = new Set(fields.map(([name]) => name));
  if (
    names.size !== fields.length ||
    fields.some(([name, value]) => !FORM_FIELDS.has(name) || typeof value !== 'string')
  ) {
    return badRequest(
      'A form may hold only the fields query, variables (JSON), operationName and csrf_token, each once.',
    );
  }
  const form = Object.fromEntries(fields) as Record<string, string | undefined>;
  let variables: unknown;
  if (form.variables !== undefined && form.variables !== '') {
    const parsed = jsonValue(form.variables, 'variables field');
    if ('code' in parsed) return parsed;
    variables = parsed.value;
  }
  return requestItem({ query: form.query, variables, operationName: form.operationName });
}
