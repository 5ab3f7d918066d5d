/**
 * Settings the e2e server (scripts/e2e-server.ts) runs with that the specs must know too.
 */

/**
 * Sign-ins and sign-ups per client address per minute on the e2e server (`AUTH_RATE_LIMIT_PER_MINUTE`;
 * the public default is 30): the whole suite signs fans in and up from 127.0.0.1, and
 * e2e/edges.spec.ts proves the limit still binds, from another address, at this figure.
 */
export const E2E_AUTH_RATE_LIMIT_PER_MINUTE = 200;
