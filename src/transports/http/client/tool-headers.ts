/**
 * What an HTTP client knows about the `x-mcp-header` arguments of the tools it has listed (the rules
 * live in `protocol/mcp-headers.ts`): learned from `tools/list` results as they pass, used to add
 * `Mcp-Param-*` headers to calls, and to drop tools that break the rules from what the Client sees
 * (so one bad tool cannot make its calls fail at the server's header check, or smuggle a header past
 * an intermediary).
 */
import { type HeaderParam, headerValueOf, scanToolHeaders } from '../../../protocol/mcp-headers.js';
import { isPlainObject } from '../../../util/guards.js';
import type { Json } from './frame-info.js';

/**
 * The mirrored arguments of the tools this connection has listed, learned from `tools/list` results
 * as they pass, and the filter that drops invalid tools from those results.
 */
export class ToolHeaderIndex {
  readonly #byTool = new Map<string, readonly HeaderParam[]>();

  /**
   * Learns from one `tools/list` result and removes the tools that break the rules from it, in
   * place. Returns one message per removed tool.
   */
  learn(result: Json): string[] {
    const tools = result.tools;
    if (!Array.isArray(tools)) return [];
    const warnings: string[] = [];
    const kept: unknown[] = [];
    for (const tool of tools) {
      if (!isPlainObject(tool) || typeof tool.name !== 'string') {
        kept.push(tool);
        continue;
      }
      const scan = scanToolHeaders(tool.inputSchema);
      if (!scan.ok) {
        this.#byTool.delete(tool.name);
        warnings.push(`Tool "${tool.name}" was dropped from tools/list: ${scan.reason}.`);
        continue;
      }
      if (scan.params.length > 0) this.#byTool.set(tool.name, scan.params);
      else this.#byTool.delete(tool.name);
      kept.push(tool);
    }
    if (warnings.length > 0) result.tools = kept;
    return warnings;
  }

  /** Whether the tool's mirrored arguments are known (it was listed and has some). */
  has(tool: string): boolean {
    return this.#byTool.has(tool);
  }

  /** Adds the `Mcp-Param-*` headers for a call of `tool` with `args`; absent and null values add none. */
  addHeaders(tool: string, args: unknown, headers: Record<string, string>): void {
    const params = this.#byTool.get(tool);
    if (!params) return;
    for (const { path, header } of params) {
      let value: unknown = args;
      for (const key of path) value = isPlainObject(value) ? value[key] : undefined;
      const encoded = headerValueOf(value);
      if (encoded !== undefined) headers[header] = encoded;
    }
  }
}
