/**
 * The conformance client: `npm run --silent conformance:client -- <url>` with the scenario named by
 * `MCP_CONFORMANCE_SCENARIO` (the suite sets it, appends the URL, and may pass
 * `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT`). Exits 0 when the scenario ran
 * to its end, 1 otherwise; the suite's mock server judges the traffic.
 */
import { Client, ProtocolError, SwitchboardError, type VersionNegotiation } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch } from 'switchboard/node';
import { acceptForm, ROOTS, sampled } from './client/answers.js';
import { conformanceOAuthClient } from './client/oauth.js';
import { SCENARIOS, type ScenarioContext } from './client/scenarios.js';

/** The revision the suite asks for: 2026-07-28 is stateless; dated ones (or none: 0.1.x) use initialize. */
function negotiation(requested: string | undefined): VersionNegotiation {
  if (requested === undefined || requested === '') return 'legacy';
  return { pin: requested as Exclude<VersionNegotiation, string>['pin'] };
}

async function main(): Promise<number> {
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const url = process.argv.at(-1);
  const auth = name.startsWith('auth/');
  // Every authorization scenario is the same calls; the suite's servers judge the sign-in.
  const scenario = SCENARIOS[auth ? 'auth' : name];
  if (!scenario || !url || process.argv.length < 3) {
    console.error(
      `Usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance:client -- <url>\nKnown scenarios: ${Object.keys(SCENARIOS).join(', ')}`,
    );
    return 2;
  }
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
  const client = new Client(
    { name: 'switchboard-conformance-client', version: '1.0.0' },
    { version: negotiation(process.env.MCP_CONFORMANCE_PROTOCOL_VERSION), timeoutMs: 20_000, skills: true },
  );
  client.onElicitation((params) => acceptForm(params));
  client.onSampling(() => sampled());
  client.setRoots(ROOTS);
  try {
    const fetch = auth ? (await conformanceOAuthClient(name, context)).fetch(nodeFetch) : nodeFetch;
    await client.connect(new StreamableHttpClientChannel(url, { fetch }));
    await scenario(client, context);
    return 0;
  } catch (error) {
    const httpStatus =
      error instanceof ProtocolError ? (error.data as { httpStatus?: number })?.httpStatus : undefined;
    // The sign-in's error may arrive wrapped (the connection it broke): look down the causes.
    let signInRefused = false;
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      if (cause instanceof SwitchboardError && cause.code === 'AUTHORIZATION') signInRefused = true;
    }
    const refused = signInRefused || httpStatus === 401 || httpStatus === 403;
    if (auth && refused) {
      // Refusing to sign in (a metadata document naming another resource, a wrong issuer), or
      // giving up after the step-up limit, is what some scenarios test: their checks judge it.
      console.error(`Scenario ${name}: refused to sign in: ${(error as Error).message}`);
      return 0;
    }
    console.error(`Scenario ${name} failed:`, error);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
  }
}

process.exitCode = await main();
