/**
 * The console as an MCP Apps host: a tool linked to a view (`_meta.ui.resourceUri`) shows its result
 * in that view too. The view is served by the console's API under a policy of its own (see
 * ../app-view.ts) into an iframe sandboxed to scripts alone (an opaque origin: no API, no token),
 * and talks to this page over postMessage JSON-RPC, the Apps host protocol: `ui/initialize`, then
 * the tool's input and result as `ui/notifications/tool-input` and `ui/notifications/tool-result`;
 * its own `tools/call` requests go to its server through the connection (a tool whose visibility
 * leaves out "app" is refused, as the specification asks of hosts).
 */
import { useEffect, useRef } from 'preact/hooks';
import { isToolForApp } from '../../extensions/apps-tools.js';
import type { CallToolResult, Tool } from '../../protocol/types.js';
import { token } from './api.js';
import { callTool } from './tools.js';

/** The Apps specification revision this host speaks. */
const APPS_PROTOCOL = '2026-01-26';

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown> };

export function AppView({
  connectionId,
  uri,
  args,
  result,
  tools,
}: {
  connectionId: string;
  uri: string;
  args: Record<string, unknown>;
  result: CallToolResult;
  /** The connection's tools, to refuse a view's call of one it may not use. */
  tools: readonly Tool[] | undefined;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    const post = (message: Record<string, unknown>) =>
      frame.current?.contentWindow?.postMessage({ jsonrpc: '2.0', ...message }, '*');
    const answer = async (message: Message): Promise<Record<string, unknown>> => {
      switch (message.method) {
        case 'ui/initialize':
          return {
            result: {
              protocolVersion: APPS_PROTOCOL,
              hostInfo: { name: 'switchboard-console', version: '1.0.0' },
              hostCapabilities: { serverTools: {} },
              hostContext: { theme: 'light', displayMode: 'inline' },
            },
          };
        case 'tools/call': {
          const name = String(message.params?.name ?? '');
          const listed = tools?.find((tool) => tool.name === name);
          if (listed !== undefined && !isToolForApp(listed)) {
            return { error: { code: -32602, message: `The tool ${name} is not for views.` } };
          }
          const outcome = await callTool(
            connectionId,
            name,
            (message.params?.arguments ?? {}) as Record<string, unknown>,
          );
          return outcome.result
            ? { result: outcome.result }
            : { error: { code: outcome.error?.code ?? -32603, message: outcome.error?.message ?? 'failed' } };
        }
        default:
          return { error: { code: -32601, message: `This host does not answer ${message.method}.` } };
      }
    };
    const listener = (event: MessageEvent) => {
      if (event.source !== frame.current?.contentWindow) return;
      const message = event.data as Message;
      if (message?.jsonrpc !== '2.0' || typeof message.method !== 'string') return;
      if (message.id === undefined) {
        if (message.method === 'ui/notifications/initialized') {
          post({ method: 'ui/notifications/tool-input', params: { arguments: args } });
          post({ method: 'ui/notifications/tool-result', params: result });
        }
        return;
      }
      void answer(message).then((reply) => post({ id: message.id, ...reply }));
    };
    addEventListener('message', listener);
    return () => removeEventListener('message', listener);
  }, [connectionId, uri, args, result, tools]);
  const src = `/api/connections/${encodeURIComponent(connectionId)}/view?uri=${encodeURIComponent(uri)}&token=${encodeURIComponent(token)}`;
  return (
    <section class="app-view" aria-label="App view">
      <h4>
        View <code class="muted">{uri}</code>
      </h4>
      <iframe ref={frame} src={src} sandbox="allow-scripts" title={`App view ${uri}`} />
    </section>
  );
}
