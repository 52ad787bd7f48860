/**
 * The console's client of a `switchboard gateway`'s admin endpoint (`gateway.admin`, see
 * docs/gateway.md): the tools it holds back with both definitions, an approval, a check of one
 * server. Requests carry the connection's own headers (an API key or token for a gateway with
 * `gateway.auth`) and the admin token when the console has one (`SWITCHBOARD_ADMIN_TOKEN`).
 */
import type { FleetResult } from '../fleet/fleet-check.js';
import { ADMIN_TOKEN_HEADER, type HeldItem } from '../gateway/admin.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import { BadRequest } from './connection.js';

/** A listing answers at once; a check runs the whole checker on a server. */
const LIST_TIMEOUT_MS = 10_000;
const CHECK_TIMEOUT_MS = 10 * 60_000;

/** What the admin endpoint says is held, or why it cannot be asked. */
export type AdminHeld = { readonly held: readonly HeldItem[] } | { readonly unavailable: string };

export class GatewayAdmin {
  readonly #headers: Record<string, string>;

  constructor(
    readonly endpoint: string,
    headers: Readonly<Record<string, string>> = {},
    token?: string,
  ) {
    this.#headers = { ...headers, ...(token ? { [ADMIN_TOKEN_HEADER]: token } : {}) };
  }

  /** The held items; never throws (an endpoint that is off, or refuses, says why). */
  async held(): Promise<AdminHeld> {
    try {
      const body = await this.#request('GET', '/admin/pins', undefined, LIST_TIMEOUT_MS);
      return { held: Array.isArray(body.held) ? (body.held as HeldItem[]) : [] };
    } catch (error) {
      return { unavailable: errorMessage(error) };
    }
  }

  async approve(name: string): Promise<void> {
    await this.#request('POST', '/admin/pins/approve', { name }, LIST_TIMEOUT_MS);
  }

  /** The checker's result for one server, run by the gateway on its config entry. */
  async check(server: string): Promise<FleetResult> {
    return (await this.#request(
      'POST',
      '/admin/check',
      { server },
      CHECK_TIMEOUT_MS,
    )) as unknown as FleetResult;
  }

  async #request(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    const url = new URL(path, this.endpoint).href;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { ...this.#headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new BadRequest(
        `The gateway's admin endpoint ${url} could not be reached: ${errorMessage(error)}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {}
    if (response.ok && isPlainObject(parsed)) return parsed;
    // The admin endpoint's own refusals say { error }; the Host/Origin guard's and the front door's are JSON-RPC errors.
    const said = isPlainObject(parsed)
      ? typeof parsed.error === 'string'
        ? parsed.error
        : isPlainObject(parsed.error) && typeof parsed.error.message === 'string'
          ? parsed.error.message
          : text
      : text;
    // Only the console knows where its token comes from: a 401 says how to give it the right one.
    const todo =
      response.status === 401
        ? " Give the console the gateway's gateway.admin.token: SWITCHBOARD_ADMIN_TOKEN for switchboard console, gatewayAdminToken for serveConsole()."
        : '';
    throw new BadRequest(`The gateway's admin endpoint answered ${response.status}: ${said.trim()}${todo}`);
  }
}
