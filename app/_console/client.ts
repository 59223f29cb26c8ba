import { Client, cacheExchange, fetchExchange, mapExchange } from 'urql';

/**
 * The console's GraphQL client: POST only (Apollo's CSRF prevention refuses a bare GET), the session
 * cookie sent as is, and a 401 anywhere sends the operator to /login and back here afterwards.
 */
export function createConsoleClient(): Client {
  return new Client({
    url: '/api/graphql',
    preferGetMethod: false,
    fetchOptions: { credentials: 'same-origin' },
    requestPolicy: 'cache-and-network',
    exchanges: [
      mapExchange({
        onError(error) {
          if ((error.response as Response | undefined)?.status === 401) toSignIn();
        },
      }),
      cacheExchange,
      fetchExchange,
    ],
  });
}

export function toSignIn(): void {
  const here = window.location.pathname + window.location.search;
  window.location.assign(`/login?next=${encodeURIComponent(here)}`);
}
