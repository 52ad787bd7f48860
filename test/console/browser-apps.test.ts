/**
 * The console as an MCP Apps host, through a gateway, in a real browser (see browser.test.ts): two
 * servers built with the project's Apps helpers behind one gateway; a call of a tool linked to a
 * view renders that `ui://` view (read through the gateway under its mapped URI) in a sandboxed
 * frame, which gets the tool's result and calls its own server's app-only tool by its own name
 * through the gateway. The view's frame can reach neither the console's API nor anything else.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { appsServer } from '../fixtures/apps-upstream.js';
import { gatewayOver } from '../gateway/helpers.js';
import { type Bench, connectFrom, startBench } from './page.js';

let bench: Bench;
let page: Page;
const upstreams: RunningServer[] = [];
let gateway: Awaited<ReturnType<typeof gatewayOver>>;

before(async () => {
  for (const label of ['forecast', 'maps']) {
    upstreams.push(
      await serve(createHttpHandler(appsServer(label, { refresh: label === 'forecast' })), { port: 0 }),
    );
  }
  [gateway, bench] = await Promise.all([
    gatewayOver({ forecast: { url: upstreams[0]!.url }, maps: { url: upstreams[1]!.url } }),
    startBench(),
  ]);
  page = bench.page;
});
after(async () => {
  await bench?.close();
  await gateway?.close();
  for (const upstream of upstreams) await upstream.close();
});

test("a tool's MCP Apps view renders through the gateway and calls its own server's tool by its own name", async () => {
  await connectFrom(page, 'http', gateway.url);
  const nav = page.getByRole('navigation', { name: 'Tools' });
  await nav.getByRole('button', { name: /forecast__show_weather/ }).click();
  await page.getByRole('button', { name: 'Call forecast__show_weather' }).click();
  const view = page.getByRole('region', { name: 'App view' });
  await view.getByText('ui://forecast/weather/dashboard').waitFor();
  const frame = page.frameLocator('iframe[title="App view ui://forecast/weather/dashboard"]');
  await frame.getByRole('heading', { name: 'forecast forecast' }).waitFor();
  // The host sent the tool's result after the view's ui/initialize.
  await frame.getByText('shown: forecast: sunny').waitFor();
  // The view calls `refresh`, its server's name for it; the gateway routes it to forecast.
  await frame.getByRole('button', { name: 'Refresh' }).click();
  await frame.getByText(/^refreshed: forecast refreshed \d+$/).waitFor();
  await bench.shot('app-view');

  // The frame is an opaque origin: the console's API (token and all) is out of its reach.
  const reached = await page
    .frames()
    .find((f) => f.url().includes('/view?'))!
    .evaluate(async () => {
      try {
        await fetch('/api/connections');
        return 'fetched';
      } catch {
        return 'refused';
      }
    });
  assert.equal(reached, 'refused');
});
