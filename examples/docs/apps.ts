import {
  Client,
  clientSupportsApps,
  registerAppResource,
  registerAppTool,
  Server,
  withAppsSupport,
} from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'weather', version: '1.0.0' });

// The view: a ui:// resource of type text/html;profile=mcp-app, with its sandbox settings.
registerAppResource(
  server,
  'Dashboard',
  'ui://weather/dashboard',
  { ui: { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: true } },
  () => '<!DOCTYPE html><html><body>…</body></html>',
);

// A tool rendered by the view, with a text answer for hosts without MCP Apps.
registerAppTool(
  server,
  'get_weather',
  { description: 'Current weather', ui: { resourceUri: 'ui://weather/dashboard' } },
  (_args, ctx) => (clientSupportsApps(ctx.client) ? 'Sunny (see the dashboard)' : 'Sunny, 21 °C'),
);
// A tool only the view calls (its refresh button): hosts keep it away from the model.
registerAppTool(
  server,
  'refresh',
  {
    description: 'Reloads the dashboard data',
    ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] },
  },
  () => 'refreshed',
);

// A host that renders views declares the extension.
const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const host = new Client({ name: 'host', version: '1.0.0' }, { capabilities: withAppsSupport() });
await host.connect(clientEnd);

console.log(host.serverCapabilities.extensions);
console.log((await host.listTools()).tools.map((t) => t.name));
console.log((await host.listTools({ forModel: true })).tools.map((t) => t.name)); // what the model sees
const [view] = (await host.readResource('ui://weather/dashboard')).contents;
console.log(view?.mimeType, JSON.stringify(view?._meta));
console.log((await host.callTool('get_weather')).content);
await host.close();

// Output:
// { 'io.modelcontextprotocol/ui': {} }
// [ 'get_weather', 'refresh' ]
// [ 'get_weather' ]
// text/html;profile=mcp-app {"ui":{"csp":{"connectDomains":["https://api.weather.example"]},"prefersBorder":true}}
// [ { type: 'text', text: 'Sunny (see the dashboard)' } ]
