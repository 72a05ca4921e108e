/** `POST /registration` with a JSON body and the given initial access token. */
export async function register(
  issuer: string,
  metadata: Record<string, unknown>,
  token: string | null = 'demo-initial-access-token',
) {
  const res = await fetch(`${issuer}/registration`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(metadata),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown> & { error?: string; error_description?: string },
  };
}

/** A minimal valid web client registration. */
export const WEB_CLIENT = Object.freeze({ redirect_uris: ['https://rp.example/cb'], client_name: 'Test RP' });
